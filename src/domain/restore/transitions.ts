/**
 * Every move a restore job can make, in one table. Services change status only through
 * `moveJob` (services/restore/store.ts), which checks the move is listed here and applies it
 * as `UPDATE … WHERE status = from` — so racing callers (start vs cancel, worker vs sweeper)
 * have exactly one winner.
 *
 * Status notes:
 * - `processing` covers "started, waiting for a worker" (no lease) and "a worker runs it"
 *   (lease held). The spec shows start answering `processing`, so there is no separate
 *   `queued` step; `queued` stays a valid value but no move leads to it.
 * - A job whose real length is far above the declared one ends `refunded` (money back, error
 *   says why).
 */
import type { RestoreStatus } from "../../db/schema.js";

export interface Transition {
  from: RestoreStatus;
  to: RestoreStatus;
  trigger: string;
  /** The charge goes back to the balance and key (and a card payment to the card outbox). */
  refunds: boolean;
}

export const RESTORE_TRANSITIONS: readonly Transition[] = [
  { from: "pending_payment", to: "processing", trigger: "checkout paid", refunds: false },
  { from: "awaiting_upload", to: "processing", trigger: "start (upload verified)", refunds: false },
  { from: "awaiting_upload", to: "cancelled", trigger: "cancel", refunds: true },
  { from: "processing", to: "processing", trigger: "claim / retry / lapsed lease", refunds: false },
  { from: "processing", to: "done", trigger: "worker completes", refunds: false },
  {
    from: "processing",
    to: "failed",
    trigger: "worker fails (final or last attempt)",
    refunds: true,
  },
  { from: "processing", to: "refunded", trigger: "real length far above declared", refunds: true },
  { from: "pending_payment", to: "expired", trigger: "sweeper: never paid", refunds: false },
  {
    from: "awaiting_upload",
    to: "expired",
    trigger: "sweeper: upload never arrived",
    refunds: true,
  },
  {
    from: "done",
    to: "expired",
    trigger: "sweeper: retention over, files deleted",
    refunds: false,
  },
];

export function findTransition(from: RestoreStatus, to: RestoreStatus): Transition | undefined {
  return RESTORE_TRANSITIONS.find((t) => t.from === from && t.to === to);
}

export function assertTransition(from: RestoreStatus, to: RestoreStatus): Transition {
  const t = findTransition(from, to);
  if (!t) throw new Error(`restore job cannot move from ${from} to ${to}`);
  return t;
}

export const TERMINAL_STATUSES: readonly RestoreStatus[] = [
  "done",
  "failed",
  "refunded",
  "cancelled",
  "expired",
];

/** The error a job shows after each refunding end, one sentence the caller can act on. */
export const RESTORE_MESSAGES = {
  cancelled: "Cancelled before the file arrived; the price was refunded.",
  uploadExpired:
    "The file never arrived within the upload window; the job expired and the price was refunded.",
  unpaidExpired: "The job was never paid and expired; create a new job to restore this video.",
  retention: (hours: number) =>
    `The files were deleted after ${hours} hours (retention); create a new job to restore the video again.`,
  tooLong: (realSec: number, declaredSec: number) =>
    `The video is ${fmtMinutes(realSec)} min long but ${fmtMinutes(declaredSec)} min was declared; it was refunded — create a new job with the real duration.`,
  attemptsExhausted: (attempts: number, last: string) =>
    `${last} It failed ${attempts} times, so it was stopped and refunded.`,
} as const;

function fmtMinutes(sec: number): string {
  const min = sec / 60;
  return min >= 10 ? min.toFixed(0) : min.toFixed(1);
}
