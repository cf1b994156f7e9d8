/** Table types of uploads in parts (migration 015): the uploads and kinora's record of their parts. */

import type { ChecksumAlgorithm } from "../domain/uploads.js";
import type { NullableTimestamp, Timestamp } from "./schema-columns.js";

/** What became of an upload in parts. */
export type MultipartUploadStatus = "open" | "completing" | "completed" | "aborted";

/** multipart_uploads: one upload in parts of one object. */
export interface MultipartUploadsTable {
  /** `up_…` */
  id: string;
  /** The storage key of the object the parts make. */
  object_key: string;
  /** The store's own id of the upload (S3's UploadId). */
  store_upload_id: string;
  content_type: string;
  size_bytes: number;
  part_size_bytes: number;
  part_count: number;
  checksum_algorithm: ChecksumAlgorithm;
  status: MultipartUploadStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Past this the upload is aborted and its parts deleted. */
  expires_at: Timestamp;
  completed_at: NullableTimestamp;
  aborted_at: NullableTimestamp;
  /** expired | job_ended | cancelled | failed */
  abort_reason: string | null;
  /** When the second abort (for a part S3 may have kept) was made. */
  abort_confirmed_at: NullableTimestamp;
}

/** multipart_upload_parts: a part that arrived whole, as the store answered it. */
export interface MultipartUploadPartsTable {
  upload_id: string;
  part_number: number;
  size_bytes: number;
  etag: string;
  /** The part's checksum (base64), as its URL bound it. */
  checksum: string;
  received_at: Timestamp;
}
