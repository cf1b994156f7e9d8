/**
 * A kind's workers' reports (./queue.ts), each only from the lease holder: heartbeat with
 * progress, a running attempt's facts, complete (or hand off to child units), fail (retry while
 * attempts remain, else end and refund in the same transaction), release on shutdown (no
 * attempt used); and the recovery of lapsed leases.
 */
import { sql } from "kysely";
import { progressCrossesStep } from "../domain/webhooks.js";
import { CHILD_UNITS_LEASE, CHILD_UNITS_OWNER } from "./children.js";
import type { HandOff, JobColumns, JobEngineDeps, JobFields } from "./definition.js";
import { assignments, findJobRow, inTx, moveJob } from "./move.js";
import {
  afterMove,
  deleteFiles,
  end,
  holder,
  LEASE_CLEARED,
  later,
  type QueueContext,
  reportFinished,
  requeue,
} from "./queue-moves.js";
import { notifyJobEvent } from "./watch.js";
import { enqueueJobEvent } from "./webhook-outbox.js";
import type { ReportOutcome, WorkFailure, WorkNote, WorkResult } from "./work.js";

const RECOVER_BATCH = 100;

/** Extends the lease and, with a progress, writes it (its notification and event with it). */
export async function heartbeat<Row extends JobColumns>(
  q: QueueContext<Row>,
  id: string,
  workerId: string,
  leaseMs: number,
  progress: number | null,
): Promise<ReportOutcome> {
  const { def, deps } = q;
  const now = deps.clock();
  const fields: JobFields = { lease_expires_at: later(q, leaseMs), updated_at: now };
  if (progress !== null) fields.progress = progress;
  // Progress is what callers watch: its notification and webhook event commit with it.
  const beat = (db: JobEngineDeps["db"]) =>
    sql<Row & { progress_before: number | null }>`
    UPDATE ${sql.table(def.table)} SET ${assignments(fields)}
    FROM (SELECT progress AS progress_before FROM ${sql.table(def.table)}
          WHERE id = ${id} FOR UPDATE) AS before
    WHERE id = ${id} AND status = ${def.running} AND lease_owner = ${workerId}
    RETURNING *`.execute(db);
  const result =
    progress === null
      ? await beat(deps.db)
      : await inTx(deps.db, async (tx) => {
          const beaten = await beat(tx);
          const row = beaten.rows[0];
          if (!row) return beaten;
          await notifyJobEvent(tx, id);
          if (progressCrossesStep(row.progress_before, progress)) {
            await enqueueJobEvent(tx, { kind: def.kind, row }, "progress", now);
          }
          return beaten;
        });
  const beaten = result.rows[0];
  if (beaten) {
    if (progress !== null && def.beat) await afterMove(q, "beat", () => def.beat?.(beaten, deps));
    return "ok";
  }
  return (await findJobRow(deps.db, def, id)) ? "lease_lost" : "not_found";
}

/**
 * The attempt ends by handing the job to child units (./children.ts): the lease passes to
 * them and the child kind inserts the units, in one transaction.
 */
async function handOff<Row extends JobColumns>(
  q: QueueContext<Row>,
  row: Row,
  workerId: string,
  h: HandOff,
): Promise<ReportOutcome> {
  const { def, deps } = q;
  const child = deps.definition?.(h.childKind);
  if (!child?.spawn) throw new Error(`${def.kind} hands off to ${h.childKind}, which spawns none`);
  const now = deps.clock();
  const moved = await inTx(deps.db, async (tx) => {
    const fields = {
      ...h.set,
      lease_owner: CHILD_UNITS_OWNER,
      lease_expires_at: CHILD_UNITS_LEASE,
      updated_at: now,
    };
    const result = await sql<Row>`
      UPDATE ${sql.table(def.table)} SET ${assignments(fields)}
      WHERE id = ${row.id} AND status = ${def.running} AND lease_owner = ${workerId}
      RETURNING *`.execute(tx);
    const parent = result.rows[0];
    if (parent) await child.spawn?.(tx, parent, h.units, deps);
    return parent;
  });
  if (!moved) return "lease_lost";
  deps.log.info("job handed to child units", { kind: def.kind, job_id: row.id, to: h.childKind });
  await deps.notifyJobs();
  return "ok";
}

/** A failed attempt: requeued while attempts remain (retryable), else the job ends. */
export async function fail<Row extends JobColumns>(
  q: QueueContext<Row>,
  id: string,
  workerId: string,
  failure: WorkFailure,
): Promise<ReportOutcome> {
  const row = await holder(q, id, workerId);
  if (typeof row === "string") return row;
  const guard = { leaseOwner: workerId };
  if (failure.kind === "retry" && row.attempts < row.max_attempts) {
    await requeue(q, row, guard, "failed");
    return "ok";
  }
  const exhausted = failure.kind === "retry";
  const message = exhausted ? q.def.exhausted(row.attempts, failure.message) : failure.message;
  await end(q, row, failure, guard, message);
  return "ok";
}

/** A running attempt's facts, for the kind to act on (only from the lease holder). */
export async function note<Row extends JobColumns>(
  q: QueueContext<Row>,
  id: string,
  workerId: string,
  facts: WorkNote,
): Promise<ReportOutcome> {
  const row = await holder(q, id, workerId);
  if (typeof row === "string") return row;
  await q.def.noted?.(row, facts, q.deps);
  return "ok";
}

/** A successful attempt: the job done with what finish() writes, a retry, or a hand-off. */
export async function complete<Row extends JobColumns>(
  q: QueueContext<Row>,
  id: string,
  workerId: string,
  result: WorkResult,
): Promise<ReportOutcome> {
  const { def, deps } = q;
  const row = await holder(q, id, workerId);
  if (typeof row === "string") return row;
  const finished = await def.finish(row, result, deps);
  if ("retry" in finished) return fail(q, id, workerId, { kind: "retry", message: finished.retry });
  if ("handOff" in finished) return handOff(q, row, workerId, finished.handOff);
  const now = deps.clock();
  const moved = await moveJob(
    deps.db,
    def,
    id,
    "complete",
    now,
    {
      ...LEASE_CLEARED,
      progress: 1,
      error: null,
      finished_at: now,
      expires_at: new Date(now.getTime() + deps.retentionHours * 3600_000),
      ...finished.set,
    },
    { leaseOwner: workerId },
  );
  if (!moved) return "lease_lost";
  reportFinished(q, moved, now);
  await deleteFiles(q, def.filesAfterEnd(moved, "done"));
  if (def.completed) await afterMove(q, "completed", () => def.completed?.(moved, deps));
  return "ok";
}

/** A worker that stops (shutdown) hands the job back; the attempt does not count. */
export async function release<Row extends JobColumns>(
  q: QueueContext<Row>,
  id: string,
  workerId: string,
): Promise<ReportOutcome> {
  const row = await holder(q, id, workerId);
  if (typeof row === "string") return row;
  const set = { ...LEASE_CLEARED, progress: 0, attempts: sql`GREATEST(attempts - 1, 0)` };
  const moved = await moveJob(q.deps.db, q.def, id, "release", q.deps.clock(), set, {
    leaseOwner: workerId,
  });
  if (moved) await q.deps.notifyJobs();
  return moved ? "ok" : "lease_lost";
}

/**
 * Jobs whose lease lapsed: requeued, or on their last attempt ended with workerLost() — guarded
 * by "the lease is still lapsed", so a late heartbeat wins. The number recovered.
 */
export async function recoverLapsedLeases<Row extends JobColumns>(
  q: QueueContext<Row>,
): Promise<number> {
  const { def, deps } = q;
  const now = deps.clock();
  const lapsed = await sql<Row>`
    SELECT * FROM ${sql.table(def.table)}
    WHERE status = ${def.running} AND lease_expires_at < ${now}
    ORDER BY lease_expires_at LIMIT ${RECOVER_BATCH}`.execute(deps.db);
  let n = 0;
  for (const row of lapsed.rows) {
    const guard = { lapsedBefore: now };
    const retry = row.attempts < row.max_attempts;
    const done = retry
      ? await requeue(q, row, guard, "lapsed")
      : await end(q, row, { kind: "final", message: "" }, guard, def.workerLost(row.attempts));
    if (!done) continue;
    n++;
    deps.events?.leaseLapsed({ kind: def.kind, outcome: retry ? "requeued" : "failed" });
  }
  return n;
}
