/**
 * Object keys: one place that decides how files are named in storage, so the
 * local disk store and S3 agree and no caller can smuggle a path into a key.
 */

/** Longest key we accept; S3 allows 1024 bytes, we stay well below. */
export const MAX_KEY_LENGTH = 512;

// A segment starts with a letter or digit, so "." and ".." can never be segments
// and keys can never collide with the dot-prefixed temp and metadata files the
// local store keeps beside each object.
const SEGMENT = "[A-Za-z0-9][A-Za-z0-9._-]{0,127}";
const KEY_PATTERN = new RegExp(`^${SEGMENT}(?:/${SEGMENT}){0,7}$`);

// Ids are prefixed (rj_…, clip_…); the prefix is checked so a clip id can never
// address a restore job's files by mistake.
const RESTORE_ID_PATTERN = /^rj_[A-Za-z0-9_-]{1,100}$/;
const CLIP_ID_PATTERN = /^clip_[A-Za-z0-9_-]{1,100}$/;

/** Thrown when a key or an id that would become part of a key is malformed. */
export class InvalidKeyError extends Error {
  override readonly name = "InvalidKeyError";
}

/** True when `key` is a storage key we accept (path-like, no traversal, bounded). */
export function isValidKey(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && KEY_PATTERN.test(key);
}

/** Throws InvalidKeyError unless `key` is valid; returns it for chaining. */
export function assertValidKey(key: string): string {
  if (!isValidKey(key)) {
    throw new InvalidKeyError(
      `invalid storage key ${JSON.stringify(key.slice(0, 80))}: use 1–8 "/"-separated segments of letters, digits, ".", "_" or "-", each starting with a letter or digit`,
    );
  }
  return key;
}

function checkId(id: string, pattern: RegExp, what: string): string {
  if (!pattern.test(id)) {
    throw new InvalidKeyError(`invalid ${what} ${JSON.stringify(id.slice(0, 80))}`);
  }
  return id;
}

/** Where the video a caller uploads for restore job `jobId` lives. */
export function restoreInputKey(jobId: string): string {
  return `restore/${checkId(jobId, RESTORE_ID_PATTERN, "restore job id")}/input`;
}

/** Where the restored video of job `jobId` lives. */
export function restoreOutputKey(jobId: string): string {
  return `restore/${checkId(jobId, RESTORE_ID_PATTERN, "restore job id")}/output`;
}

/** Where the source image of clip `clipId` lives (deleted once the clip is made). */
export function clipImageKey(clipId: string): string {
  return `clips/${checkId(clipId, CLIP_ID_PATTERN, "clip id")}/image`;
}

/** Where the generated video of clip `clipId` lives. */
export function clipOutputKey(clipId: string): string {
  return `clips/${checkId(clipId, CLIP_ID_PATTERN, "clip id")}/output`;
}

/** What a job file key names: its area, the job (or clip) id, and which file. */
export interface JobFileKey {
  area: "restore" | "clips";
  id: string;
  file: "input" | "output" | "image";
}

/** Parses a key made by the functions above; null for anything else. */
export function parseJobFileKey(key: string): JobFileKey | null {
  const m = /^(restore|clips)\/([A-Za-z0-9_-]{1,110})\/(input|output|image)$/.exec(key);
  if (!m) return null;
  const [, area, id, file] = m as unknown as [
    string,
    JobFileKey["area"],
    string,
    JobFileKey["file"],
  ];
  const valid =
    area === "restore"
      ? RESTORE_ID_PATTERN.test(id) && file !== "image"
      : CLIP_ID_PATTERN.test(id) && file !== "input";
  return valid ? { area, id, file } : null;
}
