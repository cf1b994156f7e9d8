/**
 * Row access for restore jobs: the conditional status move every change goes through, and
 * the refund that rides in the same transaction as a move to a refunding status.
 */
import type { Kysely, Selectable, Updateable } from "kysely";
import type { DB, RestoreJobsTable, RestoreStatus } from "../../db/schema.js";
import { assertTransition } from "../../domain/restore/transitions.js";
import { refundJob } from "../ledger.js";

export type RestoreJobRow = Selectable<RestoreJobsTable>;
export type Db = Kysely<DB>;

export interface MoveOptions {
  id: string;
  from: RestoreStatus;
  to: RestoreStatus;
  now: Date;
  set?: Updateable<RestoreJobsTable>;
  /** Worker reports: only the lease holder may move the job. */
  leaseOwner?: string;
  /** Lease recovery: only while the lease is still lapsed (a late heartbeat wins). */
  leaseExpiredBefore?: Date;
  /** The reason written on the refund entry (refunding moves only). */
  refundReason?: string;
}

/**
 * `UPDATE … WHERE id AND status = from [AND lease_owner = …] RETURNING *`. Returns the moved
 * row, or undefined when another caller changed the job first. Refunding moves refund the
 * balance charge (at most once, by the ledger's unique index) and queue a card refund for a
 * checkout-paid job — run it inside a transaction so both commit together.
 */
export async function moveJob(db: Db, opts: MoveOptions): Promise<RestoreJobRow | undefined> {
  const transition = assertTransition(opts.from, opts.to);
  let q = db
    .updateTable("restore_jobs")
    .set({ ...opts.set, status: opts.to, updated_at: opts.now })
    .where("id", "=", opts.id)
    .where("status", "=", opts.from);
  if (opts.leaseOwner !== undefined) q = q.where("lease_owner", "=", opts.leaseOwner);
  if (opts.leaseExpiredBefore) q = q.where("lease_expires_at", "<", opts.leaseExpiredBefore);
  const row = await q.returningAll().executeTakeFirst();
  if (row && transition.refunds) {
    await refundRestore(db, row, opts.refundReason ?? `restore ${row.id} ${opts.to}`);
  }
  return row;
}

/** Balance refund (no-op for card-paid jobs) plus the card-refund outbox row when paid by card. */
export async function refundRestore(db: Db, row: RestoreJobRow, reason: string): Promise<void> {
  await refundJob(db, row.id, reason);
  if (!row.paid_from_balance && row.payment_ref !== null) {
    await db
      .insertInto("restore_card_refunds")
      .values({ job_id: row.id, amount_cents: row.amount_cents, reason })
      .onConflict((oc) => oc.column("job_id").doNothing())
      .execute();
  }
}

export async function findJob(db: Db, id: string): Promise<RestoreJobRow | undefined> {
  return db.selectFrom("restore_jobs").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Runs fn in a transaction (a Kysely instance already in one runs it directly). */
export async function inTx<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  return db.transaction().execute(fn);
}
