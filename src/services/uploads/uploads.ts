/**
 * Uploads in parts, the use cases every job kind shares (by the storage key of the file, so
 * no kind is named here): open one for a declared size, hand out part links bound to each
 * part's size and checksum, record a part the caller says arrived, tell a resumer what arrived,
 * complete (join and check the size: ./finish.ts), abort (./finish.ts, ./abort.ts). The kinds
 * check who may do which (the job's owner, in a status that takes its file); this module checks
 * the upload itself.
 *
 * kinora keeps its own record of the parts (multipart_upload_parts): where the store can list
 * its parts (S3, the local store) the listing is the truth and the record follows it; where it
 * cannot (s3rver), the record of what callers reported is all there is, and the store's
 * complete checks each part's ETag.
 */
import type {
  PartTicketView,
  UploadPlanView,
  UploadProgressView,
  UploadReportView,
  UploadSummaryView,
} from "../../api/uploads.js";
import { ApiError, conflict, invalidField, wrongState } from "../../domain/errors.js";
import {
  CHECKSUM_NAMES,
  type ChecksumAlgorithm,
  isBase64Digest,
  isPartNumber,
  type PartChecksum,
  partSize,
  planParts,
} from "../../domain/uploads.js";
import { MultipartError, type StoredPart } from "../../storage/blob-store.js";
import { abortRow } from "./abort.js";
import type { UploadsDeps } from "./deps.js";
import { briefProgress, fullProgress, unquote } from "./progress.js";
import {
  findLatest,
  findUnfinished,
  insertUpload,
  planOf,
  savePart,
  summariesByKey,
  type UploadRow,
} from "./records.js";

/** Part links live this long; a caller asks again for the parts it has not sent by then. */
export const PART_URL_SEC = 3600;
/** The most part links one request may ask for. */
export const MAX_PARTS_PER_REQUEST = 1000;

export type { UploadRow, UploadsDeps };

/**
 * Opens the upload in parts of `key` (the store's and kinora's record), or answers the one
 * already open for it: opening is idempotent, so a creator retried after a lost answer gets
 * the same upload.
 */
export async function openUpload(
  deps: UploadsDeps,
  input: {
    key: string;
    contentType: string;
    sizeBytes: number;
    partBytes: number;
    /** The checksum every part carries (UPLOAD_PART_CHECKSUM). */
    checksum: ChecksumAlgorithm;
    expiresAt: Date;
  },
): Promise<UploadRow> {
  const open = await findUnfinished(deps.db, input.key);
  if (open) return open;
  const plan = planParts(input.sizeBytes, input.partBytes);
  const { uploadId } = await deps.storage.multipart.create(input.key, {
    contentType: input.contentType,
    plan,
    checksum: input.checksum,
  });
  const now = deps.clock();
  const row = await insertUpload(deps.db, {
    id: deps.ids("up"),
    object_key: input.key,
    store_upload_id: uploadId,
    content_type: input.contentType,
    size_bytes: plan.sizeBytes,
    part_size_bytes: plan.partSizeBytes,
    part_count: plan.partCount,
    checksum_algorithm: input.checksum,
    status: "open",
    created_at: now,
    updated_at: now,
    expires_at: input.expiresAt,
  });
  if (row) return row;
  // Another opener won the race: keep its upload, free ours.
  await deps.storage.multipart.abort(input.key, uploadId).catch(() => {});
  const winner = await findUnfinished(deps.db, input.key);
  if (!winner) throw new Error(`the upload in parts of ${input.key} vanished while opening`);
  return winner;
}

/** The upload of `key` (the latest, whatever became of it), or undefined. */
export function uploadOf(deps: UploadsDeps, key: string): Promise<UploadRow | undefined> {
  return findLatest(deps.db, key);
}

/**
 * The plan for a file of `sizeBytes` in parts of `partBytes` (UPLOAD_PART_BYTES), as a create
 * answer shows it; the same plan openUpload makes.
 */
export function planView(
  input: { sizeBytes: number; partBytes: number; checksum: PartChecksum; expiresAt: Date },
  steps: string,
): UploadPlanView {
  const plan = planParts(input.sizeBytes, input.partBytes);
  return {
    method: "parts",
    size_bytes: plan.sizeBytes,
    part_size_bytes: plan.partSizeBytes,
    part_count: plan.partCount,
    checksum: input.checksum,
    expires_at: input.expiresAt.toISOString(),
    steps,
  };
}

/** How far each key's latest upload in parts got (for job views); absent keys have none. */
export async function uploadSummaries(
  deps: UploadsDeps,
  keys: readonly string[],
): Promise<Map<string, UploadSummaryView>> {
  const rows = await summariesByKey(deps.db, keys);
  const out = new Map<string, UploadSummaryView>();
  for (const [key, r] of rows) {
    const done = r.status === "completed";
    out.set(key, {
      method: "parts",
      status: r.status,
      size_bytes: Number(r.size_bytes),
      part_count: r.part_count,
      received_parts: done ? r.part_count : r.received_parts,
      received_bytes: done ? Number(r.size_bytes) : r.received_bytes,
    });
  }
  return out;
}

/** Refuses anything but an open upload, saying what became of it. */
export function assertOpen(row: UploadRow): void {
  if (row.status === "open") return;
  if (row.status === "completed") {
    throw new ApiError(
      "already_uploaded",
      "The file's parts were already joined: the file is whole.",
    );
  }
  if (row.status === "completing") {
    throw conflict("The file's parts are being joined now; read the job again in a moment.");
  }
  throw wrongState(
    `The upload was aborted (${row.abort_reason ?? "aborted"}) and its parts deleted; create a new job.`,
  );
}

/**
 * Links for the given parts, each bound to its size and checksum. Refuses (400, naming the
 * field) a part number outside the plan, a malformed checksum, a part asked twice.
 */
export async function partTickets(
  deps: UploadsDeps,
  row: UploadRow,
  parts: readonly PartChecksumInput[],
): Promise<PartTicketView[]> {
  assertOpen(row);
  const plan = planOf(row);
  if (parts.length === 0 || parts.length > MAX_PARTS_PER_REQUEST) {
    throw invalidField("parts", `must list 1 to ${MAX_PARTS_PER_REQUEST} parts.`);
  }
  const seen = new Set<number>();
  parts.forEach((p, i) => {
    if (!isPartNumber(plan, p.part_number)) {
      throw invalidField(
        `parts.${i}.part_number`,
        `must be 1 to ${plan.partCount}: the file has ${plan.partCount} parts of ${plan.partSizeBytes} bytes.`,
      );
    }
    if (seen.has(p.part_number)) {
      throw invalidField(`parts.${i}.part_number`, `lists part ${p.part_number} twice.`);
    }
    seen.add(p.part_number);
  });
  // Every checksum is checked before any link is signed: one bad item refuses the request whole.
  const checked = parts.map((p, i) => ({ ...p, checksum: checksumOf(row, p, `parts.${i}.`) }));
  return Promise.all(
    checked.map(async (p) => {
      const sizeBytes = partSize(plan, p.part_number);
      const ticket = await deps.storage.multipart.presignPart(row.object_key, row.store_upload_id, {
        partNumber: p.part_number,
        sizeBytes,
        checksum: p.checksum,
        expiresInSec: PART_URL_SEC,
      });
      return {
        part_number: p.part_number,
        size_bytes: sizeBytes,
        url: ticket.url,
        headers: ticket.headers,
        expires_at: ticket.expiresAt.toISOString(),
      };
    }),
  );
}

/**
 * The store's listing (with `only`, of that part; null when it cannot list); a gone upload
 * becomes the caller's 409.
 */
async function storeParts(
  deps: UploadsDeps,
  row: UploadRow,
  only?: number,
): Promise<StoredPart[] | null> {
  try {
    return await deps.storage.multipart.listParts(row.object_key, row.store_upload_id, { only });
  } catch (err) {
    if (err instanceof MultipartError && err.problem === "no_such_upload") {
      await abortRow(deps, row, "failed");
      throw wrongState("The upload's parts are gone from storage; create a new job.");
    }
    throw err;
  }
}

/**
 * Records part `partNumber` as arrived, with the ETag its PUT answered. Where the store can
 * list its parts the part must be there with that ETag and the plan's size; elsewhere the
 * caller's word stands until complete, which the store checks against the ETags. Answers the
 * upload's state: with `brief`, its counts only (./progress.ts).
 */
export async function recordPart(
  deps: UploadsDeps,
  row: UploadRow,
  input: { partNumber: number; etag: string } & PartChecksumFields,
  opts: { brief?: boolean } = {},
): Promise<UploadReportView> {
  assertOpen(row);
  const plan = planOf(row);
  if (!isPartNumber(plan, input.partNumber)) {
    throw invalidField("part_number", `must be 1 to ${plan.partCount}.`);
  }
  const checksum = checksumOf(row, input, "");
  const listed = await storeParts(deps, row, input.partNumber);
  const expected = partSize(plan, input.partNumber);
  let sizeBytes = expected;
  if (listed !== null) {
    const held = listed.find((p) => p.partNumber === input.partNumber);
    if (!held || unquote(held.etag) !== unquote(input.etag)) {
      throw new ApiError(
        "not_uploaded",
        `Part ${input.partNumber} has not arrived${held ? " with that ETag" : ""}: PUT it to its link, then report it with the ETag the PUT answered.`,
      );
    }
    sizeBytes = held.sizeBytes;
  }
  if (sizeBytes !== expected) {
    throw new ApiError(
      "upload_mismatch",
      `Part ${input.partNumber} is ${sizeBytes} bytes but the plan says ${expected}; send it again with its link.`,
    );
  }
  await savePart(deps.db, {
    upload_id: row.id,
    part_number: input.partNumber,
    size_bytes: sizeBytes,
    etag: input.etag,
    checksum,
    received_at: deps.clock(),
  });
  return opts.brief ? briefProgress(deps, row) : fullProgress(deps, row, null);
}

/**
 * Where the upload stands. The store's listing, where it has one, is the truth: the record
 * takes the parts it holds and forgets the ones it does not (a part rewritten and cut off).
 */
export async function uploadProgress(
  deps: UploadsDeps,
  row: UploadRow,
): Promise<UploadProgressView> {
  const listed = row.status === "open" ? await storeParts(deps, row) : null;
  return fullProgress(deps, row, listed);
}

/** A part's checksum as a caller gives it: `checksum`, or `sha256` (its name before CRC32). */
export interface PartChecksumFields {
  checksum?: string;
  sha256?: string;
}

/** A part a caller is about to send: its number and its checksum. */
export type PartChecksumInput = { part_number: number } & PartChecksumFields;

/**
 * The part's checksum, checked against the upload's algorithm: `checksum`, or for a SHA-256
 * upload `sha256` as older callers name it. 400 naming the field (under `prefix`) otherwise.
 */
function checksumOf(row: UploadRow, p: PartChecksumFields, prefix: string): string {
  const algorithm = row.checksum_algorithm;
  const named = CHECKSUM_NAMES[algorithm];
  if (p.checksum !== undefined && p.sha256 !== undefined) {
    throw invalidField(`${prefix}sha256`, "give the part's checksum once, as `checksum`.");
  }
  if (p.sha256 !== undefined && algorithm !== "sha256") {
    throw invalidField(
      `${prefix}sha256`,
      `this upload's parts carry ${algorithm.toUpperCase()} (the plan's checksum), not SHA-256: send \`checksum\`, the ${named} of the part's bytes.`,
    );
  }
  const value = p.checksum ?? p.sha256;
  const field = p.checksum === undefined && p.sha256 !== undefined ? "sha256" : "checksum";
  if (value === undefined || !isBase64Digest(algorithm, value)) {
    throw invalidField(`${prefix}${field}`, `must be the ${named} of the part's bytes.`);
  }
  return value;
}
