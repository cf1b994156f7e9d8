/** Whether the caller's file arrived as declared; the refusal saying what is wrong if not. */
import { ApiError } from "../../../domain/errors.js";
import type { BlobStore } from "../../../storage/blob-store.js";
import type { RestoreJobRow } from "./store.js";

export async function uploadProblem(
  storage: BlobStore,
  row: Pick<RestoreJobRow, "id" | "input_key" | "size_bytes" | "content_type">,
): Promise<ApiError | null> {
  const info = await storage.head(row.input_key);
  if (!info) {
    return new ApiError(
      "not_uploaded",
      "The file has not been uploaded yet: PUT it to the upload_url with the upload_headers from job creation, then try again.",
    );
  }
  const declared = Number(row.size_bytes);
  if (info.sizeBytes !== declared) {
    return new ApiError(
      "upload_mismatch",
      `The uploaded file is ${info.sizeBytes} bytes but size was declared as ${declared}; create a new job with the real size.`,
    );
  }
  const type = info.contentType?.split(";")[0]?.trim().toLowerCase() ?? null;
  if (type !== row.content_type.toLowerCase()) {
    return new ApiError(
      "upload_mismatch",
      `The uploaded file was sent as ${type ?? "no content type"} but content_type was declared as ${row.content_type}; upload it again with the upload_headers.`,
    );
  }
  return null;
}
