/**
 * Row access for restore jobs: find one, and move one by name through the job engine (a
 * conditional update; a refunding move refunds in the same transaction).
 */
import type { Kysely, Updateable } from "kysely";
import type { DB } from "../../../db/schema.js";
import type { JobFields } from "../../../jobs/definition.js";
import { inTx, type MoveGuard, moveJob } from "../../../jobs/move.js";
import type { RestoreMove } from "../rules/transitions.js";
import { type RestoreJobRow, refundRestore, restoreJobs } from "./definition.js";
import type { RestoreJobsTable } from "./tables.js";

export type { RestoreJobRow };
export { inTx, refundRestore };

type Db = Kysely<DB>;

/** Applies a named move; the moved row, or undefined when another caller changed it first. */
export function moveRestore(
  db: Db,
  id: string,
  move: RestoreMove,
  now: Date,
  set: JobFields & Updateable<RestoreJobsTable> = {},
  guard: MoveGuard = {},
): Promise<RestoreJobRow | undefined> {
  return moveJob(db, restoreJobs, id, move, now, set, guard);
}

/** One restore job by id. */
export async function findJob(db: Db, id: string): Promise<RestoreJobRow | undefined> {
  return db.selectFrom("restore_jobs").selectAll().where("id", "=", id).executeTakeFirst();
}
