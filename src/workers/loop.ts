/**
 * The worker loop: claim → execute under a heartbeat → complete or fail. The same loop serves
 * in-process workers and `kinora worker` on another machine; only the WorkSource differs.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Logger } from "../logger.js";
import {
  type Executor,
  type JobKind,
  WorkError,
  type WorkFailure,
  type WorkItem,
  type WorkSource,
} from "./types.js";

export interface WorkerLoopOptions {
  workerId: string;
  source: WorkSource;
  executors: Executor[];
  log: Logger;
  /** How long one claim may wait for work (long-poll / LISTEN) before looping. */
  claimWaitMs?: number;
  heartbeatMs?: number;
  /** Back-off after the source itself fails (server down, database error). */
  errorBackoffMs?: number;
  scratchDir?: string;
}

export interface RunningWorker {
  /** Stops claiming; waits for the current job to finish (or aborts it after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
  readonly done: Promise<void>;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

export function startWorkerLoop(opts: WorkerLoopOptions): RunningWorker {
  const stopping = new AbortController();
  const jobAbort = new AbortController();
  const kinds = opts.executors.map((e) => e.kind) as JobKind[];
  const byKind = new Map(opts.executors.map((e) => [e.kind, e]));
  const log = opts.log.child({ worker_id: opts.workerId });

  const done = (async () => {
    while (!stopping.signal.aborted) {
      let item: WorkItem | null = null;
      try {
        item = await opts.source.claim(kinds, opts.workerId, opts.claimWaitMs ?? 1000);
      } catch (err) {
        log.warn("claim failed", { err });
        await sleep(opts.errorBackoffMs ?? 2000, stopping.signal);
        continue;
      }
      if (!item) continue;
      const executor = byKind.get(item.kind);
      if (!executor) continue;
      await runOne(item, executor, opts, log, jobAbort.signal);
    }
  })();

  return {
    done,
    async stop(graceMs = 30_000) {
      stopping.abort();
      const timer = setTimeout(() => jobAbort.abort(), graceMs);
      await done;
      clearTimeout(timer);
    },
  };
}

async function runOne(
  item: WorkItem,
  executor: Executor,
  opts: WorkerLoopOptions,
  log: Logger,
  stopSignal: AbortSignal,
) {
  const jobLog = log.child({ job_id: item.jobId, kind: item.kind, attempt: item.attempt });
  const attempt = new AbortController();
  const onStop = () => attempt.abort();
  stopSignal.addEventListener("abort", onStop);
  let progress: number | null = null;
  const beat = setInterval(() => {
    opts.source.heartbeat(item, opts.workerId, progress).then(
      (held) => {
        if (!held) {
          jobLog.warn("lease lost; abandoning the attempt");
          attempt.abort();
        }
      },
      (err) => jobLog.warn("heartbeat failed", { err }),
    );
  }, opts.heartbeatMs ?? 5000);
  const workDir = await mkdtemp(path.join(opts.scratchDir ?? tmpdir(), `kinora-${item.jobId}-`));
  const started = performance.now();
  try {
    jobLog.info("job started");
    const result = await executor.execute(item, {
      signal: attempt.signal,
      workDir,
      progress: (f) => {
        progress = Math.max(0, Math.min(1, f));
      },
    });
    if (attempt.signal.aborted) return; // lease lost or shutting down: someone else owns it now
    await opts.source.complete(item, opts.workerId, result);
    jobLog.info("job done", { ms: Math.round(performance.now() - started) });
  } catch (err) {
    if (attempt.signal.aborted && !(err instanceof WorkError)) {
      jobLog.warn("attempt aborted; the lease will lapse and the job be retried");
      return;
    }
    const failure: WorkFailure =
      err instanceof WorkError
        ? err.failure
        : {
            kind: "retry",
            message: "The processing engine failed unexpectedly; the job will be retried.",
          };
    if (!(err instanceof WorkError)) jobLog.error("attempt crashed", { err });
    else jobLog.info("job failed", { failure });
    await opts.source
      .fail(item, opts.workerId, failure)
      .catch((e) => jobLog.error("fail report failed", { err: e }));
  } finally {
    clearInterval(beat);
    stopSignal.removeEventListener("abort", onStop);
    await rm(workDir, { recursive: true, force: true });
  }
}
