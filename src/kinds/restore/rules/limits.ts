/**
 * Every restore limit in one place: what a caller may send, how long its links live, how large
 * a worker's result may be and how far the real length may exceed the declared one. Routes,
 * services, the job definition and the executor all read them from here.
 */

/** What a caller may send; checked before pricing (the HTTP layer answers 422 past these). */
export const RESTORE_LIMITS = {
  maxWidth: 7680,
  maxHeight: 4320,
  filenameMaxLength: 200,
} as const;

/**
 * The longest and largest video a restore takes: operator settings (RESTORE_MAX_DURATION_SEC,
 * default 6 hours; RESTORE_MAX_SIZE_BYTES, default 50 GiB — a digitised tape), which the
 * services read from the config and the price table shows.
 */
export interface RestoreLimits {
  maxDurationSec: number;
  maxSizeBytes: number;
}

/**
 * The most an operator may allow (config.ts holds its settings to these): two days of video,
 * and S3's largest object. A request past them has no price at all, whatever the server's
 * settings, so the contract refuses it before pricing.
 */
export const RESTORE_LIMIT_CEILINGS: RestoreLimits = {
  maxDurationSec: 48 * 3600,
  maxSizeBytes: 5 * 1024 ** 4,
};

/**
 * The shortest video a restore takes, in seconds: anything shorter is a still or a fragment
 * (the worker refuses it, refunded, when the length it measures is below this).
 */
export const RESTORE_MIN_VIDEO_SEC = 1;

/**
 * The most frames a second a restore takes, on average over the file (the worker refuses
 * faster footage, refunded: a second of it would carry more than a second's work). The
 * engine's MAX_FRAME_RATE; the executor's test holds the two equal.
 */
export const RESTORE_MAX_FRAME_RATE = 60;

/** Upload links live this long; after that the job expires and a balance payment is refunded. */
export const RESTORE_UPLOAD_WINDOW_SEC = 24 * 3600;
/** Download links live an hour; every read makes a fresh one. */
export const RESTORE_DOWNLOAD_URL_SEC = 3600;
/** A worker's input link and output token live this long (a long restore plus retries). */
export const RESTORE_WORKER_URL_SEC = 12 * 3600;
/** The smallest cap on a restored file a worker may store (a short video's). */
export const RESTORE_OUTPUT_MIN_CAP_BYTES = 4 * 1024 ** 3;

/**
 * The highest delivery rate of any restore, in bits per second: the engine's largest VBV cap
 * (20 Mbit/s above 1080 lines, ×1.5 at Studio Max: engines/restore/limits.ts) plus the sound
 * (at most 512 kbit/s). limits.test.ts checks it against the engine's own figure.
 */
export const RESTORE_MAX_DELIVERY_BITS_PER_SEC = 30_512_000;

/**
 * Largest restored file a worker may store for a job declared at `declaredSec`: the longest
 * length the worker accepts for it (see tooLong) at the highest delivery rate, with a quarter
 * more for the VBV buffer and the container — and never under 4 GiB. A fixed 4 GiB refused the
 * result of a two-hour tape at Enhanced (≈ 4.5 GB); this still stops a runaway or hostile
 * worker from filling the store with more than a job can honestly produce.
 */
export function restoreOutputMaxBytes(declaredSec: number): number {
  const longestSec = declaredSec * (1 + RESTORE_LENGTH_TOLERANCE) + RESTORE_LENGTH_SLACK_SEC;
  const bytes = Math.ceil(((longestSec * RESTORE_MAX_DELIVERY_BITS_PER_SEC) / 8) * 1.25);
  return Math.max(RESTORE_OUTPUT_MIN_CAP_BYTES, bytes);
}

/**
 * A `video_url` is fetched by the worker that runs the job and stored in one piece: at most
 * `maxBytes` (2 GiB; larger files are uploaded in parts), the whole fetch (redirects included) within `timeoutMs`, no byte for
 * `idleMs` ends it (a stalled server), and at most `maxRedirects` hops, each re-checked.
 */
export const RESTORE_FETCH = {
  maxBytes: 2 * 1024 ** 3,
  timeoutMs: 30 * 60_000,
  idleMs: 60_000,
  maxRedirects: 3,
} as const;

/** The real length may exceed the declared one by this share plus RESTORE_LENGTH_SLACK_SEC… */
const RESTORE_LENGTH_TOLERANCE = 0.1;
/** …before the job is refused (and refunded) as longer than declared. */
const RESTORE_LENGTH_SLACK_SEC = 2;

/** Whether a video of `realSec` is too long for a job declared at `declaredSec`. */
export function tooLong(realSec: number, declaredSec: number): boolean {
  return realSec > declaredSec * (1 + RESTORE_LENGTH_TOLERANCE) + RESTORE_LENGTH_SLACK_SEC;
}
