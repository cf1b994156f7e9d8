/**
 * Every move a restore's work unit (a segment, the sound, the join) can make. A unit waits
 * `queued`, runs `running` under a lease, and ends `done`, `failed` or `cancelled` (its restore
 * ended before it: stopped). No move refunds: a unit is never charged — its restore is, once,
 * and is refunded once through its own moves when a unit fails for good.
 */
import type { MoveTable } from "../../../domain/job-lifecycle/moves.js";

const STATUSES = ["queued", "running", "done", "failed", "cancelled"] as const;
/** A unit's status. */
export type SegmentStatus = (typeof STATUSES)[number];
/** The list as a non-empty tuple. */
export const SEGMENT_STATUSES: [SegmentStatus, ...SegmentStatus[]] = [...STATUSES];

/** Statuses a unit never leaves. */
export const SEGMENT_FINAL: readonly SegmentStatus[] = ["done", "failed", "cancelled"];

const move = (from: SegmentStatus[], to: SegmentStatus, why: string) => ({
  from,
  to,
  refunds: false,
  why,
});

/** The engine's moves, and `stop`: the unit's restore ended, so it is not wanted any more. */
export const SEGMENT_MOVES = {
  claim: move(["queued"], "running", "claimed by a worker"),
  requeue: move(["running"], "queued", "retrying"),
  release: move(["running"], "queued", "worker shut down"),
  complete: move(["running"], "done", "done"),
  fail: move(["running"], "failed", "failed"),
  refuse: move(["running"], "failed", "failed"),
  stop: move(["queued", "running"], "cancelled", "its restore ended"),
} as const satisfies MoveTable<SegmentStatus>;

/** The roles of a restore's units. */
export const SEGMENT_ROLES = ["segment", "sound", "join"] as const;
/** A unit's role. */
export type SegmentRole = (typeof SEGMENT_ROLES)[number];

/** The error of a unit stopped because its restore ended. */
export const STOPPED_MESSAGE = "Its restore ended before this part was needed.";

/**
 * The restore's error when one of its units failed for good: what the unit said, and that the
 * restore is refunded.
 */
export const unitFailed = (role: SegmentRole, index: number, message: string) =>
  `${role === "segment" ? `Part ${index + 1} of the picture` : role === "sound" ? "The sound" : "Joining the parts"} could not be restored: ${message}`;
