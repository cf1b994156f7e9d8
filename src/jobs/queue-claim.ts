/**
 * A kind's claims (./queue.ts): the oldest waiting job, taken under a lease with FOR UPDATE SKIP
 * LOCKED so concurrent workers never wait on each other nor get the same job; and the head of
 * the kind's line, for fair claims across kinds.
 */
import { sql } from "kysely";
import type { JobColumns, JobEngineDeps } from "./definition.js";
import { assignments, inTx } from "./move.js";
import { later, type QueueContext, since } from "./queue-moves.js";
import { enqueueJobEvent } from "./webhook-outbox.js";
import type { WorkItem } from "./work.js";

/** The row of the oldest waiting job, now claimed by workerId (attempt counted), if any. */
async function claimRow<Row extends JobColumns>(
  q: QueueContext<Row>,
  db: JobEngineDeps["db"],
  workerId: string,
  leaseMs: number,
  now: Date,
): Promise<Row | undefined> {
  const { def } = q;
  const table = sql.table(def.table);
  const result = await sql<Row>`
    UPDATE ${table}
    SET ${assignments({
      status: def.moves.claim.to,
      lease_owner: workerId,
      lease_expires_at: later(q, leaseMs),
      attempts: sql`attempts + 1`,
      progress: 0,
      started_at: sql`COALESCE(started_at, ${now})`,
      claimed_at: now,
      claimed_by: workerId,
      updated_at: now,
    })}
    WHERE id = (
      SELECT id FROM ${table}
      WHERE status = ${def.waiting} AND lease_expires_at IS NULL
      ORDER BY queued_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
    ) AND status = ${def.waiting} AND lease_expires_at IS NULL
    RETURNING *`.execute(db);
  return result.rows[0];
}

/** Claims the oldest waiting job for workerId: its work item, or null when none waits. */
export async function claim<Row extends JobColumns>(
  q: QueueContext<Row>,
  workerId: string,
  leaseMs: number,
): Promise<WorkItem | null> {
  const { def, deps } = q;
  const now = deps.clock();
  const row = await inTx(deps.db, async (tx) => {
    const claimed = await claimRow(q, tx, workerId, leaseMs, now);
    // The first claim starts the job (a retry's or a released job's claim does not again).
    const first = claimed && new Date(claimed.started_at ?? 0).getTime() === now.getTime();
    if (claimed && first)
      await enqueueJobEvent(tx, { kind: def.kind, row: claimed }, "started", now);
    return claimed;
  });
  if (!row) return null;
  // Wait is queued → first claim; a retry's wait would include the failed attempt.
  const waitMs = row.attempts === 1 ? since(row.queued_at, now) : null;
  deps.events?.jobClaimed({ kind: def.kind, waitMs });
  const body = await def.workItem(row, deps);
  return {
    kind: def.kind,
    jobId: row.id,
    attempt: row.attempts,
    leaseExpiresAt: new Date(row.lease_expires_at ?? now).toISOString(),
    leaseMs,
    ...body,
  };
}

/**
 * The head of the kind's line (the claimable index's first entry), for fair claims; a job
 * waiting without a queued_at sorts after every dated one, as the claim's ORDER BY puts it.
 */
export async function oldestWaiting<Row extends JobColumns>(
  q: QueueContext<Row>,
): Promise<Date | null> {
  const { rows } = await sql<{ queued_at: Date | string | null }>`
    SELECT queued_at FROM ${sql.table(q.def.table)}
    WHERE status = ${q.def.waiting} AND lease_expires_at IS NULL
    ORDER BY queued_at, id LIMIT 1`.execute(q.deps.db);
  const head = rows[0];
  if (!head) return null;
  return head.queued_at === null ? new Date(8.64e15) : new Date(head.queued_at);
}
