/**
 * Errors the caller can act on: their file, not our machinery, is the problem. The message is
 * the sentence the customer reads (the job's `error`), so it never quotes ffmpeg; what ffmpeg
 * printed travels beside it as `detail`, for the worker's log only.
 */
export type MediaErrorCode = "corrupt" | "no_video" | "still_image" | "too_short" | "unsupported";

export class MediaError extends Error {
  constructor(
    readonly code: MediaErrorCode,
    message: string,
    /** What ffmpeg said (the end of its stderr), for the log; never shown to the customer. */
    readonly detail?: string,
  ) {
    super(message);
    this.name = "MediaError";
  }
}

export const CORRUPT_MESSAGE =
  "The uploaded file could not be read as a video: it is damaged, or not a video file.";
export const NO_VIDEO_MESSAGE = "The uploaded file has no picture to restore: it is not a video.";
export const AUDIO_ONLY_MESSAGE =
  "The uploaded file is sound only, with no picture: a restore needs a video.";
export const STILL_IMAGE_MESSAGE =
  "The uploaded file is a still picture, not a video: a restore needs moving footage.";
export const UNDECODABLE_MESSAGE =
  "Much of the uploaded video's picture could not be decoded: the file is damaged. Export or copy it again and upload the new file.";

/** A video shorter than the shortest a restore takes (seconds with one decimal). */
export function tooShortMessage(seconds: number, minSec: number): string {
  // Two decimals, cut rather than rounded: 0.996 s must not read as "1.00 s" beside "at least 1 s".
  const s = (Math.floor(seconds * 100) / 100).toFixed(2);
  return `The uploaded video is only ${s} s long: a restore needs at least ${minSec} s of video.`;
}

/** A file whose media stops well before the length its header gives: an upload cut off. */
export function cutOffMessage(readSec: number, claimedSec: number): string {
  const r = Math.floor(readSec * 10) / 10;
  const c = Math.round(claimedSec * 10) / 10;
  return `The uploaded video stops after ${r} s of its ${c} s: the file is cut off or damaged. Upload the whole file again.`;
}

/**
 * A video whose frames come faster than a restore takes (its average over the whole file, in whole
 * frames): e.g. high-speed footage, or minutes of video packed into seconds to be restored at
 * the price of seconds.
 */
export function frameRateMessage(fps: number, maxFps: number): string {
  return `The uploaded video runs at ${Math.round(fps)} frames a second: a restore takes at most ${maxFps}. Convert it to ${maxFps} frames a second or fewer and upload it again.`;
}

export function unsupportedCodecMessage(codec: string): string {
  return `The uploaded video is in a format this service cannot read (${codec}).`;
}

/** `-progress` key=value lines would bury the error ffmpeg printed; keep only the prose. */
export function errorTail(stderr: string, lines = 8): string {
  return stderr
    .split(/\r?\n|\r/)
    .filter((l) => l.trim() !== "" && !/^[a-z_]+=\S*$/.test(l.trim()))
    .slice(-lines)
    .join("\n");
}

// Patterns ffmpeg prints when the *input* is at fault. Anything else is our bug and must not be
// blamed on the customer's file.
const CORRUPT_PATTERNS = [
  /Invalid data found when processing input/i,
  /moov atom not found/i,
  /could not find codec parameters/i,
  /End of file/i,
  /Error while decoding stream/i,
  /error reading header/i,
  /Invalid NAL unit size/i,
  /no frame!/i,
  /Output file #0 does not contain any stream/i,
  /Nothing was written into output file/i,
];

/**
 * Maps ffmpeg/ffprobe stderr from a failed run to a MediaError (with the stderr's tail as its
 * detail), or undefined when the failure does not look like the input's fault.
 */
export function mediaErrorFromStderr(stderr: string): MediaError | undefined {
  const decoder = /Decoder \((?:codec )?([\w-]+)\) not found|unknown codec ['"]?([\w-]+)/i.exec(
    stderr,
  );
  const detail = errorTail(stderr);
  if (decoder)
    return new MediaError(
      "unsupported",
      unsupportedCodecMessage(decoder[1] ?? decoder[2] ?? "unknown"),
      detail,
    );
  if (CORRUPT_PATTERNS.some((re) => re.test(stderr))) {
    return new MediaError("corrupt", CORRUPT_MESSAGE, detail);
  }
  return undefined;
}
