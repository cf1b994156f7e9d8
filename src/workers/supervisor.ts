/**
 * Runs the in-process side of the job system for `kinora serve`: N worker loops over the
 * in-process WorkSource, and a lease-recovery tick that requeues (or fails and refunds) jobs
 * whose worker stopped heartbeating — whether that worker was in-process or remote.
 */
import type { Database } from "../db/database.js";
import type { Logger } from "../logger.js";
import { createDbWorkSource, type DbWorkSource } from "./db-source.js";
import { type RunningWorker, startWorkerLoop } from "./loop.js";
import type { Executor, JobQueue } from "./types.js";

export interface JobSystem {
  source: DbWorkSource;
  stop(graceMs: number): Promise<void>;
}

export async function startJobSystem(opts: {
  database: Database;
  queues: JobQueue[];
  executors: Executor[];
  workers: number;
  leaseMs: number;
  log: Logger;
  nodeId: string;
}): Promise<JobSystem> {
  const source = await createDbWorkSource(opts.database, opts.queues, { leaseMs: opts.leaseMs });
  const loops: RunningWorker[] = [];
  if (opts.executors.length > 0) {
    for (let i = 0; i < opts.workers; i++) {
      loops.push(
        startWorkerLoop({
          workerId: `${opts.nodeId}-w${i}`,
          source,
          executors: opts.executors,
          log: opts.log,
          heartbeatMs: Math.max(1000, Math.floor(opts.leaseMs / 4)),
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
      await Promise.all(loops.map((l) => l.stop(graceMs)));
      await source.close();
    },
  };
}
