/**
 * The clip lifecycle: every allowed move in one table. The job engine never writes a status
 * without naming the move, and every move is a conditional UPDATE … WHERE status IN (from), so
 * a race between start, cancel, a worker and the sweeper has exactly one winner.
 */
import type { MoveTable } from "../../../domain/job-lifecycle/moves.js";

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

/** The clip's transition table: each named move's from, to, refund and reason. */
export const CLIP_MOVES = {
  /** POST /motion/jobs/{id}/start once the image is in storage. */
  start: { from: ["awaiting_upload"], to: "queued", refunds: false, why: "image uploaded" },
  /** POST /motion/jobs/{id}/cancel while the image never arrived. */
  cancel: { from: ["awaiting_upload"], to: "cancelled", refunds: true, why: "cancelled by caller" },
  /** Sweeper: the upload window passed without an image. */
  uploadExpired: {
    from: ["awaiting_upload"],
    to: "expired",
    refunds: true,
    why: "image never uploaded",
  },
  /** A worker claims it under a lease. */
  claim: { from: ["queued"], to: "processing", refunds: false, why: "claimed by a worker" },
  /** A retryable failure or a lapsed lease with attempts left. */
  requeue: { from: ["processing"], to: "queued", refunds: false, why: "retrying" },
  /** A worker shutting down hands the clip back without using up an attempt. */
  release: { from: ["processing"], to: "queued", refunds: false, why: "worker shut down" },
  complete: { from: ["processing"], to: "done", refunds: false, why: "clip made" },
  fail: { from: ["processing"], to: "failed", refunds: true, why: "clip failed" },
  refuse: { from: ["processing"], to: "refused", refunds: true, why: "content rule" },
  /** Sweeper: the retention period of a finished clip's files passed. */
  retentionExpired: {
    from: ["done"],
    to: "expired",
    refunds: false,
    why: "files deleted after retention",
  },
} as const satisfies MoveTable<ClipStatus>;

/** The name of a clip move. */
export type ClipMoveName = keyof typeof CLIP_MOVES;

/** Statuses nothing moves a clip out of except retention (a `?wait=` on them answers at once). */
export const CLIP_FINAL: readonly ClipStatus[] = [
  "done",
  "failed",
  "refused",
  "expired",
  "cancelled",
];
