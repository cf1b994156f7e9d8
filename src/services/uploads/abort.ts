/**
 * Aborting an upload in parts: the row moved from open to aborted, the store asked to free the
 * parts, kinora's record of them dropped. The sweeper, the kinds' abort (./finish.ts) and a
 * listing that finds the parts gone (./uploads.ts) all end an upload here; in ./finish.ts it
 * would make ./uploads.ts and ./finish.ts import each other.
 */
import { MultipartError } from "../../storage/blob-store.js";
import type { UploadsDeps } from "./deps.js";
import {
  allParts,
  dropParts,
  moveUpload,
  planOf,
  receivedTotals,
  type UploadRow,
} from "./records.js";

/** Aborts one upload (open only: one being completed finishes, and its caller cleans up). */
export async function abortRow(
  deps: UploadsDeps,
  row: UploadRow,
  reason: string,
): Promise<boolean> {
  const totals = await receivedTotals(deps.db, row.id);
  const now = deps.clock();
  const moved = await moveUpload(deps.db, row.id, ["open"], "aborted", now, {
    aborted_at: now,
    abort_reason: reason,
  });
  if (!moved) return false;
  await freeParts(deps, moved);
  await dropParts(deps.db, row.id, allParts(planOf(row)));
  deps.events?.uploadInPartsEnded({ outcome: "aborted", reason, ...totals });
  return true;
}

/** Asks the store to free an upload's parts; a store that cannot (s3rver) is logged. */
export async function freeParts(deps: UploadsDeps, row: UploadRow): Promise<void> {
  try {
    await deps.storage.multipart.abort(row.object_key, row.store_upload_id);
  } catch (err) {
    if (!(err instanceof MultipartError && err.problem === "unsupported")) throw err;
    deps.log.warn(
      "the store refused to abort an upload in parts; its lifecycle rule must clean up",
      {
        upload: row.id,
        key: row.object_key,
      },
    );
  }
}
