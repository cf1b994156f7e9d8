/**
 * The end of an upload in parts: complete (join the parts and check the size against the
 * declared one) or abort the unfinished upload of a key (./abort.ts does the work). The use
 * cases that lead here — open, part links, recording and progress — are in ./uploads.ts.
 */
import { ApiError, conflict } from "../../domain/errors.js";
import { describeParts } from "../../domain/uploads.js";
import { MultipartError } from "../../storage/blob-store.js";
import { abortRow } from "./abort.js";
import { findLatest, findUnfinished, moveUpload } from "./records.js";
import { assertOpen, type UploadRow, type UploadsDeps, uploadProgress } from "./uploads.js";

/**
 * Joins the parts into the file and checks its size against the declared one. Refuses while
 * parts are missing (400 not_uploaded, naming them), when the upload is being completed or was
 * completed (409), or when the store finds a part differs (400 upload_mismatch) — each
 * changing nothing, so the caller can send what is missing and complete again.
 */
export async function completeUpload(deps: UploadsDeps, row: UploadRow): Promise<UploadRow> {
  assertOpen(row);
  const now = deps.clock();
  const claimed = await moveUpload(deps.db, row.id, ["open"], "completing", now);
  if (!claimed) {
    const latest = await findLatest(deps.db, row.object_key);
    assertOpen(latest ?? row);
    throw conflict("The upload changed while completing; try again.");
  }
  try {
    const state = await uploadProgress(deps, { ...claimed, status: "open" });
    if (state.missing.length > 0) {
      throw new ApiError(
        "not_uploaded",
        `Parts ${describeParts(state.missing)} of ${state.part_count} have not arrived: send them, then complete again.`,
      );
    }
    const parts = state.parts.map((p) => ({
      partNumber: p.part_number,
      etag: p.etag,
      checksum: p.checksum,
    }));
    const joined = await deps.storage.multipart
      .complete(row.object_key, row.store_upload_id, parts)
      .catch((err: unknown) => {
        if (err instanceof MultipartError && err.problem === "invalid_part") {
          throw new ApiError(
            "upload_mismatch",
            `The store refused the parts (${err.message}); read the upload's state and send the parts it lists as missing.`,
          );
        }
        throw err;
      });
    if (joined.sizeBytes !== Number(row.size_bytes)) {
      await deps.storage.delete(row.object_key);
      await moveUpload(deps.db, row.id, ["completing"], "aborted", deps.clock(), {
        aborted_at: deps.clock(),
        abort_reason: "failed",
      });
      throw new ApiError(
        "upload_mismatch",
        `The joined file is ${joined.sizeBytes} bytes but size was declared as ${row.size_bytes}; create a new job.`,
      );
    }
  } catch (err) {
    await moveUpload(deps.db, row.id, ["completing"], "open", deps.clock());
    throw err;
  }
  const done = await moveUpload(deps.db, row.id, ["completing"], "completed", deps.clock(), {
    completed_at: deps.clock(),
  });
  deps.events?.uploadInPartsEnded({
    outcome: "completed",
    reason: null,
    parts: row.part_count,
    bytes: 0,
  });
  return done ?? { ...claimed, status: "completed" };
}

/**
 * Aborts the unfinished upload of `key` (a job cancelled, expired or gone): the store frees its
 * parts and the record goes. Answers whether there was one to abort.
 */
export async function abortUpload(
  deps: UploadsDeps,
  key: string,
  reason: string,
): Promise<boolean> {
  const row = await findUnfinished(deps.db, key);
  return row ? abortRow(deps, row, reason) : false;
}
