/**
 * A restore's file in parts: a declared size above UPLOAD_SINGLE_MAX_BYTES gets an upload plan
 * instead of one upload_url (services/uploads/ does the uploading; this module decides who may
 * touch which job's upload and when). The job id is the capability, as for reading the job and
 * its one-shot upload_url: a job created with a key needs that key (another wallet's, or another
 * agent key's, job is a 404); a job paid by checkout without a key is reached by its id alone.
 * Parts are taken while the job waits for its file (awaiting_upload, pending_payment); a
 * cancelled or expired job's upload is aborted and its parts deleted.
 */
import type {
  PartTicketView,
  UploadPlanView,
  UploadProgressView,
  UploadReportView,
} from "../../../api/uploads.js";
import { ApiError, invalidField, wrongState } from "../../../domain/errors.js";
import { isRecord } from "../../../domain/records.js";
import { describeParts, PART_CHECKSUM_HOW } from "../../../domain/uploads.js";
import type { Principal } from "../../../services/auth.js";
import { abortUpload, completeUpload } from "../../../services/uploads/finish.js";
import {
  openUpload,
  type PartChecksumFields,
  type PartChecksumInput,
  partTickets,
  planView,
  recordPart,
  type UploadRow,
  uploadOf,
  uploadProgress,
} from "../../../services/uploads/uploads.js";
import type { FollowUploadView } from "../api/upload-contracts.js";
import type { RestoreDeps } from "./deps.js";
import { findJob, type RestoreJobRow } from "./store.js";

const NOT_FOUND = "Restore job not found (or not visible to this key).";
/** Statuses in which a restore takes its file (its upload rule: services/definition.ts). */
const TAKES_FILE = new Set<RestoreJobRow["status"]>(["awaiting_upload", "pending_payment"]);

/** Whether a file of `sizeBytes` is sent in parts on this server. */
export function takesParts(p: RestoreDeps, sizeBytes: number | null): boolean {
  return sizeBytes !== null && sizeBytes > p.config.uploads.singleMaxBytes;
}

/** What a caller does with a plan, on any surface (the create answer's `next` names the calls). */
const PLAN_STEPS = `Cut the file into part_count parts of part_size_bytes (the last is the rest). For each, compute its checksum as the plan's \`checksum\` names it (${PART_CHECKSUM_HOW}), ask for its link with that \`checksum\`, and PUT exactly its bytes to the link with the link's headers (Content-Length = the part's size). Parts may go in any order and several at once; a part that fails is sent again, with a new link once its link expired. Then start the job (paid by checkout: open its checkout): the parts are joined and the file's size checked. Stopped halfway? Read the upload's state: it lists the parts that arrived; send only the missing ones.`;

/** The plan of a job's file in parts, as the create answer shows it. */
export function restorePlan(p: RestoreDeps, row: RestoreJobRow): UploadPlanView {
  return planView(
    {
      sizeBytes: Number(row.size_bytes),
      partBytes: p.config.uploads.partBytes,
      checksum: p.config.uploads.partChecksum,
      expiresAt: row.expires_at,
    },
    PLAN_STEPS,
  );
}

/** Opens the upload in parts of a new job's file (its window is the job's). */
export function openRestoreUpload(p: RestoreDeps, row: RestoreJobRow): Promise<UploadRow> {
  return openUpload(p, {
    key: row.input_key,
    contentType: row.content_type,
    sizeBytes: Number(row.size_bytes),
    partBytes: p.config.uploads.partBytes,
    checksum: p.config.uploads.partChecksum,
    expiresAt: row.expires_at,
  });
}

/** The job as this caller may see it: with a key, its own; without, a job made without one. */
async function visibleJob(
  p: RestoreDeps,
  principal: Principal | undefined,
  id: string,
): Promise<RestoreJobRow> {
  const row = await findJob(p.db, id);
  const visible =
    row &&
    (principal
      ? row.wallet_id === principal.walletId &&
        (principal.kind === "wallet" || row.agent_key_id === principal.keyId)
      : row.wallet_id === null);
  if (!row || !visible) throw new ApiError("not_found", NOT_FOUND);
  return row;
}

/**
 * The job's upload in parts — opened now if creating the job could not (the store was away),
 * while the job takes its file — or a 409 saying the job's file is not sent in parts.
 */
async function uploadFor(p: RestoreDeps, row: RestoreJobRow): Promise<UploadRow> {
  const upload = await uploadOf(p, row.input_key);
  if (upload) return upload;
  const parts = row.source_url === null && takesParts(p, Number(row.size_bytes));
  if (parts && TAKES_FILE.has(row.status)) return openRestoreUpload(p, row);
  if (parts) assertTakesFile(row);
  throw wrongState(
    row.source_url !== null
      ? "This job's video is fetched from its video_url: there is nothing to upload."
      : "This job's file is sent in one PUT to its upload_url, not in parts.",
  );
}

/** Refuses parts for a job no longer waiting for its file, saying why. */
function assertTakesFile(row: RestoreJobRow): void {
  if (TAKES_FILE.has(row.status)) return;
  if (row.status === "cancelled") {
    throw wrongState("This job was cancelled and refunded; its parts were deleted.");
  }
  if (row.status === "expired") {
    throw wrongState(
      `This job expired and its parts were deleted: ${row.error ?? "create a new job."}`,
    );
  }
  throw new ApiError("already_uploaded", `This job is ${row.status}: its file arrived whole.`);
}

/** Links for the parts the caller is about to send, each bound to its size and checksum. */
export async function restorePartLinks(
  p: RestoreDeps,
  principal: Principal | undefined,
  id: string,
  parts: readonly PartChecksumInput[],
): Promise<{ job_id: string; parts: PartTicketView[] }> {
  const row = await visibleJob(p, principal, id);
  assertTakesFile(row);
  const upload = await uploadFor(p, row);
  return { job_id: row.id, parts: await partTickets(p, upload, parts) };
}

/** Records a part the caller sent (with the ETag its PUT answered); the upload's state (`brief`: its counts). */
export async function reportRestorePart(
  p: RestoreDeps,
  principal: Principal | undefined,
  id: string,
  part: { partNumber: number; etag: string } & PartChecksumFields,
  opts: { brief?: boolean } = {},
): Promise<{ job_id: string; upload: UploadReportView }> {
  const row = await visibleJob(p, principal, id);
  assertTakesFile(row);
  const upload = await uploadFor(p, row);
  return { job_id: row.id, upload: await recordPart(p, upload, part, opts) };
}

/** Which parts arrived and which are missing: what a resumer reads first. */
export async function restoreUploadState(
  p: RestoreDeps,
  principal: Principal | undefined,
  id: string,
): Promise<{ job_id: string; upload: UploadProgressView }> {
  const row = await visibleJob(p, principal, id);
  const upload = await uploadFor(p, row);
  return { job_id: row.id, upload: await uploadProgress(p, upload) };
}

/**
 * What the restore's read over MCP (get_restore) adds for a file sent in parts: the upload's
 * state, and with `parts` a link for each; nothing for any other file.
 */
export async function followParts(
  p: RestoreDeps,
  principal: Principal,
  id: string,
  given?: readonly unknown[],
): Promise<{ upload?: FollowUploadView; links?: PartTicketView[] }> {
  const parts = given?.map((item, i) => partRequest(item, i));
  const row = await visibleJob(p, principal, id);
  const inParts = row.source_url === null && takesParts(p, Number(row.size_bytes));
  if (!inParts) {
    if (parts) await uploadFor(p, row); // says why there are no parts to send
    return {};
  }
  if (parts) assertTakesFile(row);
  const upload = await uploadFor(p, row).catch(() => undefined);
  if (!upload) return {};
  const links = parts ? await partTickets(p, upload, parts) : undefined;
  // Without each arrived part's record, and the missing numbers as ranges: an assistant needs
  // what is missing, and 745 records (50 GB in 64 MiB parts) are 64 KB of JSON in its context
  // on every read; 9,347 missing numbers (5 MiB parts) another 50 KB.
  const { parts: _records, missing, ...state } = await uploadProgress(p, upload);
  const view = { ...state, missing_parts: describeParts(missing, Number.POSITIVE_INFINITY) };
  return { upload: view, ...(links ? { links } : {}) };
}

/** One item of get_restore's `parts`, shaped; its number and checksum are checked with the plan. */
function partRequest(item: unknown, i: number): PartChecksumInput {
  if (!isRecord(item)) {
    throw invalidField(`parts.${i}`, "must be an object {part_number, checksum}.");
  }
  const p = item;
  const text = (v: unknown) => (v === undefined ? undefined : String(v));
  return {
    // cast: partTickets checks the number against the upload plan next, and refuses it by name
    part_number: p.part_number as number,
    checksum: text(p.checksum),
    sha256: text(p.sha256),
  };
}

/** Joins the parts and checks the file's size; 409 once joined, 400 naming missing parts. */
export async function completeRestoreParts(
  p: RestoreDeps,
  principal: Principal | undefined,
  id: string,
): Promise<RestoreJobRow> {
  const row = await visibleJob(p, principal, id);
  assertTakesFile(row);
  await completeAfterCheck(p, row, await uploadFor(p, row));
  return row;
}

/**
 * For start and checkout: joins a job's parts when its file is sent in parts and not yet
 * joined; nothing for a job with one upload_url. Throws not_uploaded naming missing parts.
 */
export async function settleRestoreUpload(p: RestoreDeps, row: RestoreJobRow): Promise<void> {
  if (!takesParts(p, row.size_bytes === null ? null : Number(row.size_bytes))) return;
  const upload = await uploadOf(p, row.input_key);
  if (!upload || upload.status === "completed") return;
  await completeAfterCheck(p, row, upload);
}

async function completeAfterCheck(p: RestoreDeps, row: RestoreJobRow, upload: UploadRow) {
  await completeUpload(p, upload);
  // The job may have stopped waiting while the parts were joined (a cancel refunds at once):
  // then the joined file goes, so none outlives its job.
  const latest = await findJob(p.db, row.id);
  if (!latest || !TAKES_FILE.has(latest.status)) {
    await p.storage.delete(row.input_key);
    assertTakesFile(latest ?? { ...row, status: "cancelled" });
  }
}

/** Aborts the job's upload in parts (a cancel): its parts are deleted. */
export async function abortRestoreUpload(
  p: RestoreDeps,
  row: RestoreJobRow,
  reason: "cancelled",
): Promise<void> {
  await abortUpload(p, row.input_key, reason);
}
