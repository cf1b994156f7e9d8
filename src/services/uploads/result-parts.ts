/**
 * A job's result in parts. The restore of a long tape can be larger than one PUT may carry (S3
 * refuses single PUTs over 5 GiB; an Enhanced restore of three hours of SD is about 6 GB), so a
 * worker that says it can send parts gets an upload in parts of the result's storage key instead
 * of one link: the same uploads a caller's own file uses (plan, part links bound to each part's
 * size and SHA-256, kinora's record, complete, retention's abort), so the bytes go straight to
 * the store on S3 and an abandoned result is cleaned up like an abandoned upload.
 *
 * The worker's output token names the key; every call here takes the key from the token, never
 * from the request, so an upload is reachable only by a worker holding a token for its key.
 */
import { ApiError } from "../../domain/errors.js";
import { abortUpload, completeUpload } from "./finish.js";
import {
  openUpload,
  partTickets,
  recordPart,
  type UploadRow,
  type UploadsDeps,
  uploadOf,
} from "./uploads.js";

/** What a worker needs to send its result in parts. */
export interface ResultUploadView {
  upload_id: string;
  part_size_bytes: number;
  part_count: number;
  checksum: "sha256";
}

/**
 * Opens the upload in parts of the result at `key`. An earlier attempt's unfinished upload of
 * the same key is aborted first: a retried job makes a new file, whose parts are not the old
 * one's.
 */
export async function openResultUpload(
  deps: UploadsDeps,
  key: string,
  input: { sizeBytes: number; contentType: string; partBytes: number; expiresAt: Date },
): Promise<ResultUploadView> {
  await abortUpload(deps, key, "replaced");
  // Workers send SHA-256 (workers/output-parts.ts): the parts a worker sends are its own files.
  const row = await openUpload(deps, { key, ...input, checksum: "sha256" });
  return {
    upload_id: row.id,
    part_size_bytes: Number(row.part_size_bytes),
    part_count: row.part_count,
    checksum: "sha256",
  };
}

/** The open upload `uploadId` of the result at `key`; not_found for any other. */
async function resultUpload(deps: UploadsDeps, key: string, uploadId: string): Promise<UploadRow> {
  const row = await uploadOf(deps, key);
  if (!row || row.id !== uploadId) {
    throw new ApiError(
      "not_found",
      "No upload in parts of this result has that id: ask the output ticket for a new one.",
    );
  }
  return row;
}

/** The link for one part of the result, bound to its size and SHA-256. */
export async function resultPartLink(
  deps: UploadsDeps,
  key: string,
  uploadId: string,
  part: { part_number: number; sha256: string },
) {
  const row = await resultUpload(deps, key, uploadId);
  const [ticket] = await partTickets(deps, row, [part]);
  return ticket;
}

/** Records a part the worker sent, with the ETag its PUT answered (checked where the store lists). */
export async function recordResultPart(
  deps: UploadsDeps,
  key: string,
  uploadId: string,
  part: { part_number: number; etag: string; sha256: string },
): Promise<void> {
  const row = await resultUpload(deps, key, uploadId);
  await recordPart(
    deps,
    row,
    { partNumber: part.part_number, etag: part.etag, sha256: part.sha256 },
    { brief: true },
  );
}

/** Joins the parts recorded; the joined size must be the declared one. Answers the size. */
export async function completeResultUpload(
  deps: UploadsDeps,
  key: string,
  uploadId: string,
): Promise<{ size_bytes: number }> {
  const row = await resultUpload(deps, key, uploadId);
  const done = await completeUpload(deps, row);
  return { size_bytes: Number(done.size_bytes) };
}

/** Gives up the result's upload in parts (the worker failed); nothing is left at the store. */
export async function abortResultUpload(
  deps: UploadsDeps,
  key: string,
  uploadId: string,
): Promise<void> {
  const row = await resultUpload(deps, key, uploadId);
  if (row.status === "open") await abortUpload(deps, key, "failed");
}
