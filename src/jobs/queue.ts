/**
 * The job engine's worker side, written once for every kind: claim (FOR UPDATE SKIP LOCKED)
 * under a lease, heartbeat with progress, complete, fail (retry while attempts remain, else
 * end and refund in the same transaction), release on shutdown (no attempt used) and recovery
 * of lapsed leases. Every change goes through moveJob with the lease owner as a guard.
 */
import type { JobColumns, JobDefinition, JobEngineDeps } from "./definition.js";
import { claim, oldestWaiting } from "./queue-claim.js";
import type { QueueContext } from "./queue-moves.js";
import { complete, fail, heartbeat, note, recoverLapsedLeases, release } from "./queue-reports.js";
import type { JobQueue } from "./work.js";

/** A kind's queue together with the definition it runs (the worker API and guards read it). */
export interface DefinedQueue extends JobQueue {
  readonly definition: JobDefinition;
}

/**
 * A kind's queue for workers: claims (./queue-claim.ts), the workers' reports and lease
 * recovery (./queue-reports.ts), over what they share (./queue-moves.ts).
 */
export function createJobQueue<Row extends JobColumns>(
  def: JobDefinition<Row>,
  deps: JobEngineDeps,
): DefinedQueue {
  const q: QueueContext<Row> = { def, deps };
  return {
    kind: def.kind,
    // The engine reads a definition's rows only through the definition itself.
    // cast: the engine reads a definition's rows only through the definition itself (Row erased here)
    definition: def as unknown as JobDefinition,
    oldestWaiting: () => oldestWaiting(q),
    claim: (workerId, leaseMs) => claim(q, workerId, leaseMs),
    heartbeat: (id, workerId, leaseMs, progress) => heartbeat(q, id, workerId, leaseMs, progress),
    note: (id, workerId, facts) => note(q, id, workerId, facts),
    complete: (id, workerId, result) => complete(q, id, workerId, result),
    fail: (id, workerId, failure) => fail(q, id, workerId, failure),
    release: (id, workerId) => release(q, id, workerId),
    recoverLapsedLeases: () => recoverLapsedLeases(q),
  };
}
