/**
 * Why a restore job ended failed or refunded, for machines: the job's `error_code` (its `error`
 * says the same in a sentence). Only the caller's own causes have a code; a job that failed on
 * our side (crashes, a lost worker, attempts used up) has none.
 */
const RESTORE_JOB_ERROR_CODES = [
  /** video_url could not be fetched, or did not serve an accepted video within the caps. */
  "video_fetch_failed",
  /** The real length is much longer than declared. */
  "too_long",
  /** The file is not a readable video: unreadable, cut off, or its picture does not decode. */
  "corrupt",
  /** The file has no picture (sound only, or nothing at all). */
  "no_video",
  /** The file is a still picture (an image, or a video of a single frame). */
  "still_image",
  /** The video is shorter than RESTORE_MIN_VIDEO_SEC. */
  "too_short",
  /** The video's codec cannot be decoded. */
  "unsupported",
] as const;

type RestoreJobErrorCode = (typeof RESTORE_JOB_ERROR_CODES)[number];

/** The job's error_code for a worker's failure code; null for codes that are not the caller's. */
export function restoreJobErrorCode(code: string | undefined): RestoreJobErrorCode | null {
  return RESTORE_JOB_ERROR_CODES.find((known) => known === code) ?? null;
}
