/**
 * The moves every job kind makes, generated from the statuses a kind names for each step of the
 * one lifecycle the job engine runs: a job waits for its input, is started (or cancelled, or its
 * upload window passes), waits for a worker, runs under a lease, and ends done, failed or
 * refused; retention ends a done job's files. A kind writes only the moves that are its own
 * (a restore's checkout payment); the rest — and which of them refund — are the same for all.
 */
import type { Move } from "./moves.js";

/** The status of each step of the lifecycle, as a kind names them. */
export interface LifecycleStatuses<S extends string> {
  /** Created and charged, waiting for the caller's input (an upload); start, cancel or expiry leave it. */
  awaiting: S;
  /** Waiting for a worker (restore: `processing` without a lease; clip: `queued`). */
  waiting: S;
  /** A worker holds the lease. */
  running: S;
  done: S;
  failed: S;
  /** Refused by a rule the work found (a clip's image, a restore far longer than declared). */
  refused: S;
  cancelled: S;
  expired: S;
}

/** The moves generated for every kind. */
export type StandardMove =
  | "start"
  | "cancel"
  | "uploadExpired"
  | "claim"
  | "requeue"
  | "release"
  | "complete"
  | "fail"
  | "refuse"
  | "retentionExpired";

/** Why each standard move happens (kept on refund ledger entries); a kind may word its own. */
const WHY: Readonly<Record<StandardMove, string>> = {
  start: "started",
  cancel: "cancelled",
  uploadExpired: "upload never arrived",
  claim: "claimed by a worker",
  requeue: "retrying",
  release: "worker shut down",
  complete: "done",
  fail: "failed",
  refuse: "refused",
  retentionExpired: "files deleted after retention",
};

/**
 * The standard moves of a kind with these statuses. The three that end a job before it ran
 * (cancel, upload expiry) or without a result (fail, refuse) give the money back.
 */
export function standardMoves<S extends string>(
  s: LifecycleStatuses<S>,
  why: Partial<Record<StandardMove, string>> = {},
): Record<StandardMove, Move<S>> {
  const move = (name: StandardMove, from: S, to: S, refunds: boolean): Move<S> => ({
    from: [from],
    to,
    refunds,
    why: why[name] ?? WHY[name],
  });
  return {
    start: move("start", s.awaiting, s.waiting, false),
    cancel: move("cancel", s.awaiting, s.cancelled, true),
    uploadExpired: move("uploadExpired", s.awaiting, s.expired, true),
    claim: move("claim", s.waiting, s.running, false),
    requeue: move("requeue", s.running, s.waiting, false),
    // A worker shutting down hands the job back without using up an attempt.
    release: move("release", s.running, s.waiting, false),
    complete: move("complete", s.running, s.done, false),
    fail: move("fail", s.running, s.failed, true),
    refuse: move("refuse", s.running, s.refused, true),
    retentionExpired: move("retentionExpired", s.done, s.expired, false),
  };
}

/** The statuses nothing moves a job out of except retention: how every job ends. */
export function standardFinal<S extends string>(s: LifecycleStatuses<S>): readonly S[] {
  return [s.done, s.failed, s.refused, s.cancelled, s.expired];
}
