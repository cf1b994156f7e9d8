/**
 * Every move a restore job can make, in one table (the job engine applies them as
 * `UPDATE … WHERE status IN (from)`, so racing callers — start vs cancel, worker vs sweeper —
 * have exactly one winner).
 *
 * Status notes:
 * - `processing` covers "started, waiting for a worker" (no lease) and "a worker runs it"
 *   (lease held). The spec shows start answering `processing`, so there is no separate
 *   `queued` step; `queued` stays a valid value but no move leads to it.
 * - A job whose real length is far above the declared one ends `refunded` (money back, error
 *   says why): the engine's `refuse` move.
 * - A balance-paid job created with a `video_url` is inserted `processing` (queued): there is
 *   nothing to upload, so no start; its worker fetches the file first.
 */
import { withoutRetryPromise } from "../../../domain/job-lifecycle/messages.js";
import type { MoveTable } from "../../../domain/job-lifecycle/moves.js";
import {
  type LifecycleStatuses,
  standardFinal,
  standardMoves,
} from "../../../domain/job-lifecycle/standard-moves.js";

/** Every state a job of this kind can be in: the one list (column type, API enum, metrics). */
const STATUSES = [
  "pending_payment",
  "awaiting_upload",
  "queued",
  "processing",
  "done",
  "failed",
  "refunded",
  "cancelled",
  "expired",
] as const;
/** A restore job's status. */
export type RestoreStatus = (typeof STATUSES)[number];
/** The list as a non-empty tuple, as enum schemas want it (`z.enum(RESTORE_STATUSES)`). */
export const RESTORE_STATUSES: [RestoreStatus, ...RestoreStatus[]] = [...STATUSES];

/** Each step of the engine's lifecycle, as a restore names it. */
export const RESTORE_LIFECYCLE: LifecycleStatuses<RestoreStatus> = {
  awaiting: "awaiting_upload",
  waiting: "processing",
  running: "processing",
  done: "done",
  failed: "failed",
  refused: "refunded",
  cancelled: "cancelled",
  expired: "expired",
};

/**
 * The restore's transition table: the standard moves (start once the upload is verified,
 * cancel before it, the engine's moves, expiries; `refuse` when the real length is far above
 * the declared one) and its own — a checkout paying a job that waits for payment, a job never
 * paid expiring, and a paid job cancelled while it waits for or is held by workers.
 */
export const RESTORE_MOVES = {
  ...standardMoves(RESTORE_LIFECYCLE, {
    complete: "restored",
    refuse: "longer than declared",
  }),
  pay: { from: ["pending_payment"], to: "processing", refunds: false, why: "checkout paid" },
  // The owner stops a paid job waiting for or held by a worker (or its segments): its worker
  // sees the lease gone at its next heartbeat; the price goes back as a failure's does.
  cancelRunning: {
    from: ["queued", "processing"],
    to: "cancelled",
    refunds: true,
    why: "cancelled while processing",
  },
  unpaidExpired: {
    from: ["pending_payment"],
    to: "expired",
    refunds: false,
    why: "never paid",
  },
} as const satisfies MoveTable<RestoreStatus>;

/** The name of a restore move. */
export type RestoreMove = keyof typeof RESTORE_MOVES;

/** Statuses nothing moves a job out of except retention (a `?wait=` on them answers at once). */
export const RESTORE_FINAL: readonly RestoreStatus[] = standardFinal(RESTORE_LIFECYCLE);

/** The error a job shows after each refunding end, one sentence the caller can act on. */
export const RESTORE_MESSAGES = {
  cancelled: "Cancelled before the file arrived; the price was refunded.",
  cancelledRunning: "Cancelled by its owner while it was being restored; the price was refunded.",
  uploadExpired:
    "The file never arrived within the upload window; the job expired and the price was refunded.",
  unpaidExpired: "The job was never paid and expired; create a new job to restore this video.",
  retention: (hours: number) =>
    `The files were deleted after ${hours} hours (retention); create a new job to restore the video again.`,
  tooLong: (realSec: number, declaredSec: number) =>
    `The video is ${fmtMinutes(realSec)} min long but ${fmtMinutes(declaredSec)} min was declared; it was refunded — create a new job with the real duration.`,
  attemptsExhausted: (attempts: number, last: string) =>
    `${withoutRetryPromise(last)} It failed ${attempts} times, so it was stopped and refunded.`,
  workerLost: "The worker processing this job stopped responding.",
  outputMissing: "The restored video did not reach storage.",
} as const;

function fmtMinutes(sec: number): string {
  const min = sec / 60;
  return min >= 10 ? min.toFixed(0) : min.toFixed(1);
}
