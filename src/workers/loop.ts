/**
 * The worker loop: claim → execute under a heartbeat → complete or fail. The same loop serves
 * in-process workers and `kinora worker` on another machine; only the WorkSource differs.
 *
 * Heartbeats follow the lease the server granted (a quarter of it), not this process's own
 * settings. Stopping (SIGTERM) claims nothing new and lets the running attempt finish within
 * the grace; an attempt still running when the grace ends is aborted and handed back to the
 * queue with `release`, so a rolling restart never uses up an attempt or refunds a job.
 *
 * A work item's params are parsed once here with the executor's schema (its kind's
 * definition's), so executors get them typed; params that do not parse fail the attempt as
 * retryable — a server and worker of different versions, which another worker may not share.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type ExecuteContext,
  type Executor,
  type JobKind,
  WorkError,
  type WorkFailure,
  type WorkItem,
  type WorkNote,
  type WorkSource,
} from "../jobs/work.js";
import type { Logger } from "../logger.js";

interface WorkerLoopOptions {
  workerId: string;
  source: WorkSource;
  executors: Executor[];
  log: Logger;
  /** How long one claim may wait for work (long-poll / LISTEN) before looping. */
  claimWaitMs?: number;
  /** Upper bound on the heartbeat interval (default: a quarter of the server's lease). */
  heartbeatMs?: number;
  /** Back-off after the source itself fails (server down, database error). */
  errorBackoffMs?: number;
  /** Root for per-attempt scratch folders (the process's Scratch dir); default the OS temp dir. */
  scratchDir?: string;
}

/** A running worker loop. */
export interface RunningWorker {
  /** Stops claiming; waits for the current job (or aborts and releases it after `graceMs`). */
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

/** The job's error when a worker cannot read what the server sent (a version mismatch). */
const MALFORMED_PARAMS =
  "The worker could not read this job's parameters (is it the same kinora version as the server?); the job will be retried.";

/** Progress reaches callers (and `?wait=` readers) at least this often. */
const PROGRESS_EVERY_MS = 5000;

/**
 * A quarter of the lease, so two missed beats still leave time — and at most every 5 s, since
 * heartbeats also carry the progress people watch; never below 100 ms.
 */
function heartbeatInterval(item: WorkItem, ceilingMs = Number.POSITIVE_INFINITY): number {
  return Math.max(100, Math.floor(Math.min(ceilingMs, item.leaseMs / 4, PROGRESS_EVERY_MS)));
}

/** Claims and runs work items one at a time until stopped. */
export function startWorkerLoop(opts: WorkerLoopOptions): RunningWorker {
  const stopping = new AbortController();
  const shutdown = new AbortController();
  const kinds: JobKind[] = opts.executors.map((e) => e.kind);
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
      // Claimed while stopping began: hand it straight back.
      if (stopping.signal.aborted) {
        await opts.source.release(item, opts.workerId).catch(() => {});
        break;
      }
      await runOne(item, executor, opts, log, shutdown.signal);
    }
  })();

  return {
    done,
    async stop(graceMs = 30_000) {
      stopping.abort();
      const timer = setTimeout(() => shutdown.abort(), graceMs);
      await done;
      clearTimeout(timer);
    },
  };
}

/** What one attempt's heartbeat, notes and end share. */
interface Attempt {
  controller: AbortController;
  /** The executor's last progress report, sent with the next heartbeat. */
  progress: number | null;
  /** The server said another worker owns the job now. */
  leaseLost: boolean;
}

/** The server took the job back: abandon the attempt (its end reports nothing). */
function loseLease(a: Attempt, log: Logger) {
  log.warn("lease lost; abandoning the attempt");
  a.leaseLost = true;
  a.controller.abort();
}

/** Heartbeats at the lease's pace, carrying the progress; a refused one loses the lease. */
function startHeartbeat(item: WorkItem, opts: WorkerLoopOptions, log: Logger, a: Attempt) {
  return setInterval(
    () => {
      opts.source.heartbeat(item, opts.workerId, a.progress).then(
        (held) => {
          if (!held) loseLease(a, log);
        },
        (err) => log.warn("heartbeat failed", { err }),
      );
    },
    heartbeatInterval(item, opts.heartbeatMs),
  );
}

/** The item's params parsed with the executor's schema; a mismatch fails the attempt (retry). */
function parsedParams(executor: Executor, item: WorkItem, log: Logger) {
  const params = executor.params.safeParse(item.params);
  if (!params.success) {
    log.error("work item params do not match this worker's kind", {
      issues: params.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`),
    });
    throw new WorkError({ kind: "retry", message: MALFORMED_PARAMS });
  }
  return params.data;
}

/** What the executor gets: the attempt's signal, its folder, progress and notes. */
function executeContext(
  item: WorkItem,
  opts: WorkerLoopOptions,
  log: Logger,
  a: Attempt,
  workDir: string,
): ExecuteContext {
  return {
    signal: a.controller.signal,
    workDir,
    progress: (f) => {
      a.progress = Math.max(0, Math.min(1, f));
    },
    note: async (facts: WorkNote) => {
      // A lost lease stops the attempt; a note that fails to arrive is applied at complete.
      const held = await opts.source.note(item, opts.workerId, facts).catch((err) => {
        log.warn("note failed; it is applied when the job completes", { err });
        return true;
      });
      if (!held) loseLease(a, log);
    },
  };
}

/** Reports a failed attempt: a WorkError's failure, or a crash as retryable. */
async function reportFailure(err: unknown, item: WorkItem, opts: WorkerLoopOptions, log: Logger) {
  const failure: WorkFailure =
    err instanceof WorkError
      ? err.failure
      : {
          kind: "retry",
          message: "The processing engine failed unexpectedly; the job will be retried.",
        };
  if (!(err instanceof WorkError)) log.error("attempt crashed", { err });
  else log.info("job failed", err.detail ? { failure, detail: err.detail } : { failure });
  await opts.source
    .fail(item, opts.workerId, failure)
    .catch((e) => log.error("fail report failed", { err: e }));
}

async function runOne(
  item: WorkItem,
  executor: Executor,
  opts: WorkerLoopOptions,
  log: Logger,
  shutdownSignal: AbortSignal,
) {
  const jobLog = log.child({ job_id: item.jobId, kind: item.kind, attempt: item.attempt });
  const a: Attempt = { controller: new AbortController(), progress: null, leaseLost: false };
  const onShutdown = () => a.controller.abort();
  shutdownSignal.addEventListener("abort", onShutdown);
  const beat = startHeartbeat(item, opts, jobLog, a);
  const started = performance.now();
  // Inside the try: a scratch folder that cannot be made fails the attempt (retried), and the
  // heartbeat stops; outside it, the timer would hold the job's lease for ever.
  let workDir: string | undefined;
  try {
    workDir = await mkdtemp(path.join(opts.scratchDir ?? tmpdir(), `${item.kind}-${item.jobId}-`));
    const params = parsedParams(executor, item, jobLog);
    jobLog.info("job started");
    const result = await executor.execute(
      { ...item, params },
      executeContext(item, opts, jobLog, a, workDir),
    );
    if (a.controller.signal.aborted) {
      await handOver(item, opts, jobLog, a.leaseLost);
      return;
    }
    await opts.source.complete(item, opts.workerId, result);
    jobLog.info("job done", { ms: Math.round(performance.now() - started) });
  } catch (err) {
    if (a.controller.signal.aborted && !(err instanceof WorkError)) {
      await handOver(item, opts, jobLog, a.leaseLost);
      return;
    }
    await reportFailure(err, item, opts, jobLog);
  } finally {
    clearInterval(beat);
    shutdownSignal.removeEventListener("abort", onShutdown);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }
}

/** An aborted attempt: after a lost lease someone else owns the job; after shutdown, release it. */
async function handOver(item: WorkItem, opts: WorkerLoopOptions, log: Logger, leaseLost: boolean) {
  if (leaseLost) return;
  log.warn("attempt interrupted by shutdown; handing the job back without using an attempt");
  await opts.source
    .release(item, opts.workerId)
    .catch((err) => log.warn("release failed; the lease will lapse instead", { err }));
}
