/**
 * The preview kind's rules: its statuses (the standard lifecycle: a preview has no move of its
 * own), and the limits that keep a free preview from being a free restore — a short excerpt, a
 * few a day, and the same longest video a restore takes.
 */
import type { MoveTable } from "../../../domain/job-lifecycle/moves.js";
import {
  type LifecycleStatuses,
  standardFinal,
  standardMoves,
} from "../../../domain/job-lifecycle/standard-moves.js";

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
/** A preview's status. */
export type PreviewStatus = (typeof STATUSES)[number];
/** Every status, as enum schemas want it. */
export const PREVIEW_STATUSES: [PreviewStatus, ...PreviewStatus[]] = [...STATUSES];

const LIFECYCLE: LifecycleStatuses<PreviewStatus> = {
  awaiting: "awaiting_upload",
  waiting: "queued",
  running: "running",
  done: "done",
  failed: "failed",
  refused: "refused",
  cancelled: "cancelled",
  expired: "expired",
};

/** Only the standard moves (a preview is free: their refunds move nothing). */
export const PREVIEW_MOVES = {
  ...standardMoves(LIFECYCLE, { start: "video uploaded", complete: "previewed" }),
} as const satisfies MoveTable<PreviewStatus>;

/** How every preview ends. */
export const PREVIEW_FINAL = standardFinal(LIFECYCLE);

/** The excerpt a preview restores: about this many seconds… */
export const PREVIEW_EXCERPT_SEC = 5;
/**
 * …and never more than this: a preview's clips are at most 6 s of the video, whatever an
 * operator or a worker asks, so a whole video can never be restored for free.
 */
export const PREVIEW_EXCERPT_MAX_SEC = 6;
/** The shortest video a preview takes (the restore engine's own shortest). */
export const PREVIEW_MIN_VIDEO_SEC = 1;
/** How long the upload link lives. */
export const PREVIEW_UPLOAD_WINDOW_SEC = 3600;
/** Download links of a preview's pictures and clips live an hour; every read makes fresh ones. */
export const PREVIEW_DOWNLOAD_URL_SEC = 3600;
/** The most previews a list page holds. */
export const PREVIEW_LIST_MAX = 50;
/** Free previews per wallet per hour unless PREVIEW_PER_HOUR says otherwise. */
export const PREVIEW_PER_HOUR_DEFAULT = 6;

/** The qualities a preview shows, in the order of the ladder. */
export const PREVIEW_QUALITIES = ["faithful", "enhanced", "enhanced_max"] as const;
/** One of PREVIEW_QUALITIES. */
export type PreviewQuality = (typeof PREVIEW_QUALITIES)[number];
/**
 * Each quality's display label, as the price list names it (kinds/restore/rules/pricing.ts; a
 * kind imports no other kind, and test/preview holds the two equal).
 */
export const PREVIEW_QUALITY_LABELS: Readonly<Record<PreviewQuality, string>> = {
  faithful: "Standard",
  enhanced: "Enhanced",
  enhanced_max: "Studio Max",
};

/** The words of a preview's refusals and failures. */
export const PREVIEW_MESSAGES = {
  tooLong: (realSec: number, maxSec: number) =>
    `The video is ${Math.round(realSec)} s long; a preview takes videos up to ${maxSec} s, the longest a restore takes.`,
  tooShort: (realSec: number) =>
    `The video is ${realSec.toFixed(1)} s long; a preview needs at least ${PREVIEW_MIN_VIDEO_SEC} s of video.`,
  notUploaded: "The video has not been uploaded yet: PUT it to upload_url, then start the preview.",
  outputMissing: "The preview's pictures were not stored; trying again.",
  uploadExpired: "The video never arrived; make a new preview.",
  retention: (hours: number) => `Deleted ${hours} hours after it was done, like a restore's files.`,
  workerLost: (attempts: number) =>
    `The preview's worker stopped responding on all ${attempts} attempts.`,
  exhausted: (attempts: number, last: string) => `${last} (after ${attempts} attempts)`,
} as const;
