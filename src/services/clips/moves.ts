/**
 * The one way a clip changes status: a conditional UPDATE naming a move from the transition
 * table, with the refund (for moves that refund) in the same transaction.
 */
import type { Updateable } from "kysely";
import type { ClipsTable } from "../../db/schema.js";
import { CLIP_MOVES, type ClipMoveName } from "../../domain/clips/transitions.js";
import { type Db, refundJob } from "../ledger.js";
import type { ClipRow } from "./view.js";

export interface MoveOptions {
  /** Only move when the lease is held by this worker. */
  leaseOwner?: string;
  /** Only move when the lease lapsed before this instant. */
  leaseLapsedBefore?: Date;
  /** Only move when the upload window closed before this instant. */
  uploadClosedBefore?: Date;
  /** Only move when retention ended before this instant. */
  expiresBefore?: Date;
}

/**
 * Applies `move` to clip `id` if its status is one the move starts from (and the options
 * hold). Returns the updated row, or undefined when another actor won the race. Runs inside
 * a transaction of its own unless `db` already is one.
 */
export async function moveClip(
  db: Db,
  id: string,
  move: ClipMoveName,
  now: Date,
  set: Updateable<ClipsTable> = {},
  opts: MoveOptions = {},
): Promise<ClipRow | undefined> {
  const spec = CLIP_MOVES[move];
  const run = async (tx: Db) => {
    let q = tx
      .updateTable("clips")
      .set({ ...set, status: spec.to, updated_at: now })
      .where("id", "=", id)
      .where("status", "in", [...spec.from]);
    if (opts.leaseOwner !== undefined) q = q.where("lease_owner", "=", opts.leaseOwner);
    if (opts.leaseLapsedBefore) q = q.where("lease_expires_at", "<", opts.leaseLapsedBefore);
    if (opts.uploadClosedBefore) q = q.where("upload_expires_at", "<", opts.uploadClosedBefore);
    if (opts.expiresBefore) q = q.where("expires_at", "<", opts.expiresBefore);
    const row = await q.returningAll().executeTakeFirst();
    if (row && spec.refunds) await refundJob(tx, id, `clip ${spec.to}: ${spec.why}`);
    return row;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}
