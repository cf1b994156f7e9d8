/**
 * BlobStore: where uploaded videos, clip images and results live. Two
 * implementations share this contract — local disk with URLs signed and served
 * by kinora itself, and any S3-compatible store with presigned URLs — so the
 * services never know which one they talk to. Both take uploads in parts the same way
 * (S3's multipart upload: create, a presigned URL per part with its checksum, list, complete,
 * abort).
 */
import type { ChecksumAlgorithm, PartPlan } from "../domain/uploads.js";
import { assertValidKey } from "./keys.js";

/** What a caller needs to upload: PUT the file to `url` sending exactly `headers`. */
export interface UploadTicket {
  url: string;
  headers: Record<string, string>;
  expiresAt: Date;
}

/** What storage knows about a stored file. */
export interface BlobInfo {
  sizeBytes: number;
  contentType: string | null;
}

interface PresignUploadOptions {
  contentType: string;
  sizeBytes: number;
  expiresInSec: number;
  /**
   * `sizeBytes` is a ceiling, not the exact size (the caller did not declare one). The local
   * store enforces it while streaming; an S3 presigned PUT cannot bind a range, so whoever
   * reads the object must check its size (start does).
   */
  upTo?: boolean;
}

interface PresignDownloadOptions {
  expiresInSec: number;
  filename?: string;
  contentType?: string;
  /** `inline` for links meant to play in a browser (a video element); attachment otherwise. */
  inline?: boolean;
}

/** A part the store holds of an upload in parts. */
export interface StoredPart {
  partNumber: number;
  sizeBytes: number;
  /** What the part's PUT answered in its ETag header (quotes included). */
  etag: string;
  /** The part's verified checksum (base64), when the store reports it. */
  checksum: string | null;
}

/**
 * Uploads in parts: the caller PUTs each part to its own short-lived URL, bound to the part's
 * size and checksum (the store refuses a body that does not match), then the parts are joined
 * into the object at the key. On S3 this is S3's multipart upload (the bytes never pass through
 * kinora); on the local store the same calls, the parts written in place in one file.
 */
export interface MultipartUploads {
  /** Opens an upload in parts of `key`; `uploadId` names it in every later call. */
  create(
    key: string,
    opts: { contentType: string; plan: PartPlan; checksum: ChecksumAlgorithm },
  ): Promise<{ uploadId: string }>;
  /** A URL that accepts a PUT of exactly this part, with the checksum in `headers`. */
  presignPart(
    key: string,
    uploadId: string,
    opts: { partNumber: number; sizeBytes: number; checksum: string; expiresInSec: number },
  ): Promise<UploadTicket>;
  /**
   * The parts the store holds, by number (with `only`, just that part, if held); null when the
   * store cannot say (s3rver refuses ListParts). MultipartError `no_such_upload` once the
   * upload was completed or aborted.
   */
  listParts(key: string, uploadId: string, opts?: { only?: number }): Promise<StoredPart[] | null>;
  /**
   * Joins the parts (every one of the plan, in order, with the ETags their PUTs answered) into
   * the object at key, and answers its size. MultipartError when a part is missing or differs.
   */
  complete(
    key: string,
    uploadId: string,
    parts: readonly { partNumber: number; etag: string; checksum: string }[],
  ): Promise<{ sizeBytes: number }>;
  /**
   * Frees the parts; an upload already gone is fine. MultipartError `unsupported` when the store
   * refuses (s3rver): its bucket's lifecycle rule must then clean up.
   */
  abort(key: string, uploadId: string): Promise<void>;
}

/** Why a store refused a multipart call. */
export type MultipartProblem =
  | "no_such_upload"
  | "invalid_part"
  | "busy"
  | "exists"
  | "unsupported";

/** A store's refusal of a multipart call, with what was wrong in words. */
export class MultipartError extends Error {
  override readonly name = "MultipartError";
  constructor(
    readonly problem: MultipartProblem,
    message: string,
  ) {
    super(message);
  }
}

/** Files by key: presigned upload and download links, reads, deletes (local disk or S3). */
export interface BlobStore {
  readonly kind: "local" | "s3";
  /** Uploads in parts of large files. */
  readonly multipart: MultipartUploads;
  /** A single-purpose URL that accepts a PUT of exactly (or, with upTo, at most) sizeBytes with this contentType to key. */
  presignUpload(key: string, opts: PresignUploadOptions): Promise<UploadTicket>;
  /** A GET URL for key, expiring; Content-Disposition attachment with filename when given. */
  presignDownload(key: string, opts: PresignDownloadOptions): Promise<string>;
  /** Size and type of the object at key, or null when there is none. */
  head(key: string): Promise<BlobInfo | null>;
  /** Writes the object to destPath; destPath appears only once the whole object arrived. */
  downloadToFile(key: string, destPath: string, signal?: AbortSignal): Promise<void>;
  uploadFromFile(key: string, srcPath: string, contentType: string): Promise<void>;
  /** Removes the object; deleting a missing object succeeds. */
  delete(key: string): Promise<void>;
}

/**
 * Whether a signed upload may land now: the services know which job a key belongs to and
 * whether it still waits for that file. `once` makes the link one-shot (a second PUT is
 * refused, even when two race). Only the local store can enforce it; S3 presigned URLs are
 * checked when the file is used instead.
 */
export type UploadGuard = (
  key: string,
) => Promise<{ ok: true; once: boolean } | { ok: false; detail: string }>;

/** Longest URL lifetime: SigV4 presigned URLs cannot live longer than 7 days. */
const MAX_URL_LIFETIME_SEC = 7 * 24 * 3600;

// Visible ASCII plus inner spaces: what can travel in an HTTP header and be
// compared byte for byte by both stores.
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const MAX_CONTENT_TYPE_LENGTH = 255;

export function assertLifetime(expiresInSec: number): void {
  if (!Number.isInteger(expiresInSec) || expiresInSec < 1 || expiresInSec > MAX_URL_LIFETIME_SEC) {
    throw new RangeError(
      `expiresInSec must be an integer from 1 to ${MAX_URL_LIFETIME_SEC}, got ${expiresInSec}`,
    );
  }
}

export function assertContentType(contentType: string): void {
  if (contentType.length > MAX_CONTENT_TYPE_LENGTH || !HEADER_VALUE.test(contentType)) {
    throw new TypeError(
      `contentType must be 1–${MAX_CONTENT_TYPE_LENGTH} printable ASCII characters, got ${JSON.stringify(contentType.slice(0, 80))}`,
    );
  }
}

export function assertUploadSize(sizeBytes: number, maxBytes: number): void {
  if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 0 || sizeBytes > maxBytes) {
    throw new RangeError(`sizeBytes must be an integer from 0 to ${maxBytes}, got ${sizeBytes}`);
  }
}

/** What every store checks before it signs a download link: key, lifetime and any type. */
export function assertDownloadRequest(
  key: string,
  { expiresInSec, contentType }: { expiresInSec: number; contentType?: string | undefined },
): void {
  assertValidKey(key);
  assertLifetime(expiresInSec);
  if (contentType !== undefined) assertContentType(contentType);
}

/** What every store checks before it signs an upload link: key, type, size and lifetime. */
export function assertUploadRequest(
  key: string,
  { contentType, sizeBytes, expiresInSec }: PresignUploadOptions,
  maxBytes: number,
): void {
  assertValidKey(key);
  assertContentType(contentType);
  assertUploadSize(sizeBytes, maxBytes);
  assertLifetime(expiresInSec);
}

/**
 * `attachment` with an ASCII fallback name and an RFC 5987 UTF-8 name, so
 * browsers save the file under its real name and no name can break the header.
 */
export function attachmentDisposition(
  filename?: string,
  type: "attachment" | "inline" = "attachment",
): string {
  if (filename === undefined) return type;
  // Drop control characters and anything that reads as a path.
  const clean = Array.from(filename)
    .filter((ch) => ch >= " " && ch !== "\x7f")
    .join("")
    .replace(/[/\\]/g, "_")
    .trim()
    .slice(0, 200);
  if (clean === "" || clean === "." || clean === "..") return type;
  const ascii = clean.replace(/[^\x20-\x7e]/g, "_").replace(/["%]/g, "_");
  const encoded = encodeURIComponent(clean).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return ascii === clean
    ? `${type}; filename="${ascii}"`
    : `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Thrown by downloadToFile when nothing is stored at the key. */
export class BlobNotFoundError extends Error {
  override readonly name = "BlobNotFoundError";
  constructor(readonly key: string) {
    super(`no object is stored at ${JSON.stringify(key)}`);
  }
}
