/**
 * The echo kind's rules: its statuses, the lifecycle steps they name (the standard moves are
 * generated from them: echo has no move of its own), its price and limits.
 */
import type { MoveTable } from "../../../../src/domain/job-lifecycle/moves.js";
import {
  type LifecycleStatuses,
  standardFinal,
  standardMoves,
} from "../../../../src/domain/job-lifecycle/standard-moves.js";

const STATUSES = [
  "awaiting_upload",
  "queued",
  "running",
  "done",
  "failed",
  "refused",
  "cancelled",
  "expired",
] as const;
/** An echo job's status. */
export type EchoStatus = (typeof STATUSES)[number];
/** Every status, as enum schemas want it. */
export const ECHO_STATUSES: [EchoStatus, ...EchoStatus[]] = [...STATUSES];

/** Each step of the engine's lifecycle, as echo names it. */
export const ECHO_LIFECYCLE: LifecycleStatuses<EchoStatus> = {
  awaiting: "awaiting_upload",
  waiting: "queued",
  running: "running",
  done: "done",
  failed: "failed",
  refused: "refused",
  cancelled: "cancelled",
  expired: "expired",
};

/** Only the standard moves. */
export const ECHO_MOVES = {
  ...standardMoves(ECHO_LIFECYCLE, { start: "text uploaded", complete: "echoed" }),
} as const satisfies MoveTable<EchoStatus>;

/** How every echo ends. */
export const ECHO_FINAL = standardFinal(ECHO_LIFECYCLE);

/** What one echo costs. */
export const ECHO_PRICE_CENTS = 7;
/** The largest text an echo takes. */
export const ECHO_MAX_BYTES = 1024;
/** How long the upload link lives. */
export const ECHO_UPLOAD_WINDOW_SEC = 3600;
/** The most echoes a list page holds. */
export const ECHO_LIST_MAX = 40;
