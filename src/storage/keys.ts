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

/**
 * Where one job kind keeps its files: `<area>/<job id>/<file>`. The kind declares it (its job
 * definition); this module only builds and parses keys from it, so it names no kind. The id
 * pattern is checked so one kind's id can never address another kind's files.
 */
export interface JobFileLayout {
  /** First key segment (`restore`, `clips`): letters, digits, `_` or `-`. */
  area: string;
  /** A valid id of the kind, whole (e.g. /^rj_[A-Za-z0-9_-]{1,100}$/). */
  idPattern: RegExp;
  /** The names of the kind's files (`input`, `output`, `image`…). */
  files: readonly string[];
}

/** The key of `file` of job `jobId`; InvalidKeyError for an id or file the layout refuses. */
export function jobFileKey(layout: JobFileLayout, jobId: string, file: string): string {
  if (!layout.idPattern.test(jobId)) {
    throw new InvalidKeyError(
      `invalid ${layout.area} job id ${JSON.stringify(jobId.slice(0, 80))}`,
    );
  }
  if (!layout.files.includes(file)) {
    throw new InvalidKeyError(`${layout.area} jobs have no file named ${JSON.stringify(file)}`);
  }
  return assertValidKey(`${layout.area}/${jobId}/${file}`);
}

/** What a job file key names: the layout it belongs to, the job id, and which file. */
interface JobFileKey {
  layout: JobFileLayout;
  id: string;
  file: string;
}

/** Parses a key made by jobFileKey with one of `layouts`; null for anything else. */
export function parseJobFileKey(key: string, layouts: readonly JobFileLayout[]): JobFileKey | null {
  if (!isValidKey(key)) return null;
  const [area, id, file, extra] = key.split("/");
  if (area === undefined || id === undefined || file === undefined || extra !== undefined) {
    return null;
  }
  const layout = layouts.find((l) => l.area === area);
  if (!layout?.idPattern.test(id) || !layout.files.includes(file)) return null;
  return { layout, id, file };
}
