/**
 * What a kind's queue shares between its claims and its workers' reports (./queue.ts): the kind
 * and its engine's services, the lease holder's check, ending and requeuing a job, the hooks a
 * definition runs after a move, and deleting the files a job leaves.
 */
import type { JobColumns, JobDefinition, JobEngineDeps } from "./definition.js";
import { findJobRow, type MoveGuard, moveJob } from "./move.js";
import type { ReportOutcome, WorkFailure } from "./work.js";

/** The lease fields a job loses when no worker holds it any more. */
export const LEASE_CLEARED = { lease_owner: null, lease_expires_at: null } as const;

/** One kind's queue: its definition and the engine's services. */
export interface QueueContext<Row extends JobColumns> {
  def: JobDefinition<Row>;
  deps: JobEngineDeps;
}

/** `ms` from now on the engine's clock. */
export function later<Row extends JobColumns>(q: QueueContext<Row>, ms: number): Date {
  return new Date(q.deps.clock().getTime() + ms);
}

/** Milliseconds from `at` to `now` (never negative); null without a start. */
export function since(at: Date | null, now: Date): number | null {
  return at === null ? null : Math.max(0, now.getTime() - new Date(at).getTime());
}

/** Tells the metrics a job finished, how and after how long a run. */
export function reportFinished<Row extends JobColumns>(q: QueueContext<Row>, row: Row, now: Date) {
  q.deps.events?.jobFinished({
    kind: q.def.kind,
    status: row.status,
    variant: q.def.variant?.(row) ?? q.def.kind,
    runMs: since(row.started_at, now),
  });
}

/**
 * A definition's hook after a move: the move stands whatever the hook does (its own writes
 * are conditional, and a unit whose next step failed is seen again by the kind's sweeper).
 */
export async function afterMove<Row extends JobColumns>(
  q: QueueContext<Row>,
  what: string,
  hook: () => Promise<void> | undefined,
): Promise<void> {
  await Promise.resolve()
    .then(hook)
    .catch((err) => q.deps.log.error("a job hook failed", { kind: q.def.kind, hook: what, err }));
}

/** Deletes a job's files; a file that cannot be deleted is logged and left to retention. */
export async function deleteFiles<Row extends JobColumns>(
  q: QueueContext<Row>,
  keys: string[],
): Promise<void> {
  for (const key of keys) {
    await q.deps.storage.delete(key).catch((err) => {
      q.deps.log.warn("could not delete a job file", { key, err });
    });
  }
}

/** The job when workerId holds its lease now; "lease_lost", or "not_found" for an unknown job. */
export async function holder<Row extends JobColumns>(
  q: QueueContext<Row>,
  id: string,
  workerId: string,
): Promise<ReportOutcome | Row> {
  const row = await findJobRow(q.deps.db, q.def, id);
  if (!row) return "not_found";
  if (row.status !== q.def.running || row.lease_owner !== workerId) return "lease_lost";
  return row;
}

/** Ends the job as the definition says for `failure` (refunding); false when the guard lost. */
export async function end<Row extends JobColumns>(
  q: QueueContext<Row>,
  row: Row,
  failure: WorkFailure,
  guard: MoveGuard,
  message: string,
): Promise<boolean> {
  const { def, deps } = q;
  const now = deps.clock();
  const how = def.end(failure);
  const moved = await moveJob(
    deps.db,
    def,
    row.id,
    how.move,
    now,
    { ...LEASE_CLEARED, ...how.set, error: message, finished_at: now },
    { ...guard, events: deps.events },
  );
  if (!moved) return false;
  reportFinished(q, moved, now);
  await deleteFiles(q, def.filesAfterEnd(moved, "ended"));
  deps.log.info("job ended", { kind: def.kind, job_id: row.id, status: moved.status });
  if (def.ended) await afterMove(q, "ended", () => def.ended?.(moved, deps));
  return true;
}

/** Puts the job back in line for another attempt; false when the guard lost. */
export async function requeue<Row extends JobColumns>(
  q: QueueContext<Row>,
  row: Row,
  guard: MoveGuard,
  reason: "failed" | "lapsed",
): Promise<boolean> {
  const { def, deps } = q;
  const set = { ...LEASE_CLEARED, progress: 0, error: null };
  const moved = await moveJob(deps.db, def, row.id, "requeue", deps.clock(), set, guard);
  if (moved) deps.events?.jobRetried({ kind: def.kind, reason });
  if (moved) await deps.notifyJobs();
  return moved !== undefined;
}
