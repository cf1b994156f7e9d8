/**
 * The one way a clip changes status: a named move from the transition table, applied by the
 * job engine as a conditional update, with the refund (for refunding moves) in the same
 * transaction.
 */
import type { Updateable } from "kysely";
import type { JobFields } from "../../../jobs/definition.js";
import { type MoveGuard, moveJob } from "../../../jobs/move.js";
import type { Db } from "../../../services/ledger.js";
import type { ClipMoveName } from "../rules/transitions.js";
import { type ClipRow, clipJobs } from "./definition.js";
import type { ClipsTable } from "./tables.js";

/** Applies `move` to clip `id`; the updated row, or undefined when another actor won the race. */
export function moveClip(
  db: Db,
  id: string,
  move: ClipMoveName,
  now: Date,
  set: JobFields & Updateable<ClipsTable> = {},
  guard: MoveGuard = {},
): Promise<ClipRow | undefined> {
  return moveJob(db, clipJobs, id, move, now, set, guard);
}
