/** Errors the caller can act on: their file, not our machinery, is the problem. */
export type MediaErrorCode = "corrupt" | "no_video" | "unsupported";

export class MediaError extends Error {
  constructor(
    readonly code: MediaErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "MediaError";
  }
}

export const CORRUPT_MESSAGE =
  "The uploaded file is not a readable video (ffmpeg could not decode it).";
export const NO_VIDEO_MESSAGE = "The uploaded file has no video stream to restore.";

export function unsupportedCodecMessage(codec: string): string {
  return `The uploaded video uses a codec this service cannot decode (${codec}).`;
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
 * Maps ffmpeg/ffprobe stderr from a failed run to a MediaError, or undefined when the failure
 * does not look like the input's fault.
 */
export function mediaErrorFromStderr(stderr: string): MediaError | undefined {
  const decoder = /Decoder \((?:codec )?([\w-]+)\) not found|unknown codec ['"]?([\w-]+)/i.exec(
    stderr,
  );
  if (decoder)
    return new MediaError(
      "unsupported",
      unsupportedCodecMessage(decoder[1] ?? decoder[2] ?? "unknown"),
    );
  if (CORRUPT_PATTERNS.some((re) => re.test(stderr))) {
    return new MediaError("corrupt", CORRUPT_MESSAGE);
  }
  return undefined;
}
