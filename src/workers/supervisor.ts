/**
 * Runs the in-process side of the job system for `kinora serve`: N worker loops over the
 * in-process WorkSource, and a lease-recovery tick that requeues (or fails and refunds) jobs
 * whose worker stopped heartbeating — whether that worker was in-process or remote.
 */
import type { Database } from "../db/database.js";
import type { Executor, JobQueue } from "../jobs/work.js";
import { createDbWorkSource, type DbWorkSource } from "../jobs/work-source.js";
import type { Logger } from "../logger.js";
import { type RunningWorker, startWorkerLoop } from "./loop.js";
import { readyExecutors } from "./readiness.js";
import { openScratch } from "./scratch.js";

/** The in-process job system of `kinora serve`: its work source and workers. */
export interface JobSystem {
  source: DbWorkSource;
  stop(graceMs: number): Promise<void>;
}

/** Starts the in-process workers over the given queues. */
export async function startJobSystem(opts: {
  database: Database;
  queues: JobQueue[];
  executors: Executor[];
  workers: number;
  leaseMs: number;
  log: Logger;
  nodeId: string;
  /** Where per-process scratch directories live (default: the OS temp dir). */
  scratchRoot?: string;
}): Promise<JobSystem> {
  const source = await createDbWorkSource(opts.database, opts.queues, { leaseMs: opts.leaseMs });
  const loops: RunningWorker[] = [];
  // An API-only node (WORKERS=0) never asks: it must start without the workers' packages.
  const executors = opts.workers > 0 ? readyExecutors(opts.executors, opts.log) : [];
  const runsJobs = executors.length > 0;
  const scratch = runsJobs ? await openScratch(opts.scratchRoot) : undefined;
  if (runsJobs) {
    for (let i = 0; i < opts.workers; i++) {
      loops.push(
        startWorkerLoop({
          workerId: `${opts.nodeId}-w${i}`,
          source,
          executors,
          log: opts.log,
          scratchDir: scratch?.dir,
        }),
      );
    }
  }
  const recoverEvery = Math.max(1000, Math.floor(opts.leaseMs / 2));
  const recovery = setInterval(async () => {
    for (const queue of opts.queues) {
      try {
        const n = await queue.recoverLapsedLeases();
        if (n > 0)
          opts.log.warn("recovered jobs with lapsed leases", { kind: queue.kind, jobs: n });
      } catch (err) {
        opts.log.error("lease recovery failed", { kind: queue.kind, err });
      }
    }
  }, recoverEvery);
  return {
    source,
    async stop(graceMs) {
      clearInterval(recovery);
      // New claims (in-process and over the worker API) get nothing from now on.
      source.drain();
      await Promise.all(loops.map((l) => l.stop(graceMs)));
      await scratch?.close();
      await source.close();
    },
  };
}
