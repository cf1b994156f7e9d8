/**
 * The one way any job changes status: a named move from its kind's transition table, applied
 * as `UPDATE … SET status = to WHERE id AND status IN (from) [AND guards] RETURNING *`, with
 * the refund of a refunding move and the webhook event of a move into a final status
 * (`completed`) in the same transaction.
 */
import { type RawBuilder, sql } from "kysely";
import { movesToFinal } from "../domain/webhooks.js";
import type { Db, JobColumns, JobDefinition, JobFields, RefundEvents } from "./definition.js";
import { notifyJobEvent } from "./watch.js";
import { enqueueJobEvent } from "./webhook-outbox.js";

/**
 * Extra conditions of a move (the lease owner, a deadline); the move changes nothing unless they
 * hold.
 */
export interface MoveGuard {
  /** Only the worker holding the lease may move the job. */
  leaseOwner?: string;
  /** Lease recovery: only while the lease is still lapsed (a late heartbeat wins). */
  lapsedBefore?: Date;
  /** Sweeps: only while `column` is still before `before`. */
  due?: { column: string; before: Date };
  /** The reason on the refund entry; default "<kind> <id> <to>: <why>". */
  refundReason?: string;
  /** Told about the refund entry of a refunding move (metrics). */
  events?: RefundEvents;
}

/** Runs fn in a transaction (a Kysely instance already in one runs it directly). */
export async function inTx<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  return db.transaction().execute(fn);
}

export function assignments(fields: JobFields): RawBuilder<unknown> {
  const parts = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    // A RawBuilder value is inlined as SQL by the template; anything else is a parameter.
    .map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  return sql.join(parts, sql`, `);
}

/** Applies `moveName` to job `id`; the moved row, or undefined when another actor won. */
export async function moveJob<Row extends JobColumns>(
  db: Db,
  def: JobDefinition<Row>,
  id: string,
  moveName: string,
  now: Date,
  set: JobFields = {},
  guard: MoveGuard = {},
): Promise<Row | undefined> {
  const move = def.moves[moveName];
  if (!move) throw new Error(`${def.kind} has no move named ${moveName}`);
  const where = [sql`id = ${id}`, sql`status IN (${sql.join([...move.from])})`];
  if (guard.leaseOwner !== undefined) where.push(sql`lease_owner = ${guard.leaseOwner}`);
  if (guard.lapsedBefore) where.push(sql`lease_expires_at < ${guard.lapsedBefore}`);
  if (guard.due) where.push(sql`${sql.ref(guard.due.column)} < ${guard.due.before}`);
  const completes = movesToFinal(move, def.final);
  const run = async (tx: Db) => {
    const result = await sql<Row>`
      UPDATE ${sql.table(def.table)}
      SET ${assignments({ ...set, status: move.to, updated_at: now })}
      WHERE ${sql.join(where, sql` AND `)}
      RETURNING *`.execute(tx);
    const row = result.rows[0];
    if (row && move.refunds) {
      const reason = guard.refundReason ?? `${def.kind} ${id} ${move.to}: ${move.why}`;
      await def.refund(tx, row, reason, guard.events);
    }
    if (row && completes) await enqueueJobEvent(tx, { kind: def.kind, row }, "completed", now);
    // Wakes callers waiting on this job (delivered at commit when inside a transaction).
    if (row) await notifyJobEvent(tx, id);
    return row;
  };
  // Anything written besides the row (a refund, the webhook outbox) commits with it or not at all.
  return move.refunds || completes ? inTx(db, run) : run(db);
}

/** A job row by id, or undefined. */
export async function findJobRow<Row extends JobColumns>(
  db: Db,
  def: JobDefinition<Row>,
  id: string,
): Promise<Row | undefined> {
  const result = await sql<Row>`SELECT * FROM ${sql.table(def.table)} WHERE id = ${id}`.execute(db);
  return result.rows[0];
}
