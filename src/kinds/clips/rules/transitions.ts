/**
 * The clip lifecycle: every allowed move in one table. The job engine never writes a status
 * without naming the move, and every move is a conditional UPDATE … WHERE status IN (from), so
 * a race between start, cancel, a worker and the sweeper has exactly one winner.
 */
import type { MoveTable } from "../../../domain/job-lifecycle/moves.js";
import {
  type LifecycleStatuses,
  standardFinal,
  standardMoves,
} from "../../../domain/job-lifecycle/standard-moves.js";

/** Every state a clip can be in: the one list (column type, API enum, metrics). */
const STATUSES = [
  "awaiting_upload",
  "queued",
  "processing",
  "done",
  "failed",
  "refused",
  "expired",
  "cancelled",
] as const;
/** A clip's status. */
export type ClipStatus = (typeof STATUSES)[number];
/** The list as a non-empty tuple, as enum schemas want it. */
export const CLIP_STATUSES: [ClipStatus, ...ClipStatus[]] = [...STATUSES];

/** Each step of the engine's lifecycle, as a clip names it. */
export const CLIP_LIFECYCLE: LifecycleStatuses<ClipStatus> = {
  awaiting: "awaiting_upload",
  waiting: "queued",
  running: "processing",
  done: "done",
  failed: "failed",
  refused: "refused",
  cancelled: "cancelled",
  expired: "expired",
};

/**
 * The clip's transition table: only the standard moves — start once the image is in storage,
 * cancel or expire while it never arrived, the engine's moves (`refuse`: the content rule),
 * retention — worded for a clip.
 */
export const CLIP_MOVES = {
  ...standardMoves(CLIP_LIFECYCLE, {
    start: "image uploaded",
    cancel: "cancelled by caller",
    uploadExpired: "image never uploaded",
    complete: "clip made",
    fail: "clip failed",
    refuse: "content rule",
  }),
} as const satisfies MoveTable<ClipStatus>;

/** The name of a clip move. */
export type ClipMoveName = keyof typeof CLIP_MOVES;

/** Statuses nothing moves a clip out of except retention (a `?wait=` on them answers at once). */
export const CLIP_FINAL: readonly ClipStatus[] = standardFinal(CLIP_LIFECYCLE);
