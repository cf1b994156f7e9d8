/**
 * S3's own multipart upload behind the BlobStore seam: the caller PUTs each part straight to
 * the bucket through a presigned UploadPart URL (the bytes never pass through kinora), bound to
 * the part's Content-Length and its checksum header (`x-amz-checksum-crc32`,
 * `x-amz-checksum-sha256` or `Content-MD5`), which S3 verifies. kinora's own calls (create,
 * list, complete, abort) go through the SDK.
 *
 * A store that refuses ListParts or AbortMultipartUpload (s3rver answers 405) is told apart:
 * listParts answers null and abort throws `unsupported`, so the services keep their own record
 * of the parts and leave the rest to the bucket's lifecycle rule.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  ListPartsCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import {
  type ChecksumAlgorithm,
  checksumAlgorithmOf,
  checksumHeader,
  S3_PART_LIMITS,
} from "../domain/uploads.js";
import {
  assertContentType,
  assertLifetime,
  MultipartError,
  type MultipartUploads,
  type StoredPart,
  type UploadTicket,
} from "./blob-store.js";
import { assertValidKey } from "./keys.js";

interface S3MultipartDeps {
  client: S3Client;
  /** Signs the part URLs (the endpoint callers reach). */
  presigner: S3Client;
  bucket: string;
  now: () => number;
}

/** The options a MultipartUploads call takes after its key and upload id. */
type OptionsOf<M extends "presignPart" | "listParts"> = Parameters<MultipartUploads[M]>[2];

/** Uploads in parts through S3's multipart API. */
export function s3MultipartUploads(deps: S3MultipartDeps): MultipartUploads {
  return {
    create: (key, opts) => createUpload(deps, key, opts),
    presignPart: (key, uploadId, opts) => presignPart(deps, key, uploadId, opts),
    listParts: (key, uploadId, opts) => listParts(deps, key, uploadId, opts),
    complete: (key, uploadId, parts) => completeUpload(deps, key, uploadId, parts),
    abort: (key, uploadId) => abortUpload(deps, key, uploadId),
  };
}

async function createUpload(
  { client, bucket: Bucket }: S3MultipartDeps,
  key: string,
  { contentType, checksum }: Parameters<MultipartUploads["create"]>[1],
): Promise<{ uploadId: string }> {
  assertValidKey(key);
  assertContentType(contentType);
  const out = await client.send(
    new CreateMultipartUploadCommand({
      Bucket,
      Key: key,
      ContentType: contentType,
      // S3 refuses a part whose checksum algorithm is not the upload's.
      ...(checksum === "md5"
        ? {}
        : { ChecksumAlgorithm: checksum === "crc32" ? "CRC32" : "SHA256" }),
    }),
  );
  if (!out.UploadId) throw new Error(`S3 CreateMultipartUpload for ${key} returned no UploadId`);
  return { uploadId: out.UploadId };
}

async function presignPart(
  deps: S3MultipartDeps,
  key: string,
  uploadId: string,
  { partNumber, sizeBytes, checksum, expiresInSec }: OptionsOf<"presignPart">,
): Promise<UploadTicket> {
  assertValidKey(key);
  assertLifetime(expiresInSec);
  assertPartNumber(partNumber);
  const algorithm = checksumAlgorithmOf(checksum);
  if (!algorithm) throw new TypeError("checksum must be a base64 CRC32, SHA-256 or MD5 digest");
  const signingDate = new Date(deps.now());
  const command = new UploadPartCommand({
    Bucket: deps.bucket,
    Key: key,
    UploadId: uploadId,
    PartNumber: partNumber,
    ContentLength: sizeBytes,
    ...checksumField(algorithm, checksum),
  });
  // Signed as headers (not hoisted into the query), so the PUT must carry them and S3
  // checks the body against them.
  const url = await getSignedUrl(deps.presigner, command, {
    expiresIn: expiresInSec,
    signingDate,
    signableHeaders: new Set(["content-md5"]),
    unhoistableHeaders: new Set(["x-amz-checksum-crc32", "x-amz-checksum-sha256"]),
  });
  return {
    url,
    headers: { [checksumHeader(algorithm)]: checksum },
    expiresAt: new Date(Math.floor(signingDate.getTime() / 1000) * 1000 + expiresInSec * 1000),
  };
}

/** An UploadPart's checksum field for `algorithm`. */
function checksumField(algorithm: ChecksumAlgorithm, checksum: string) {
  if (algorithm === "crc32") return { ChecksumCRC32: checksum };
  if (algorithm === "sha256") return { ChecksumSHA256: checksum };
  return { ContentMD5: checksum };
}

function assertPartNumber(partNumber: number): void {
  if (!Number.isSafeInteger(partNumber) || partNumber < 1 || partNumber > S3_PART_LIMITS.maxParts) {
    throw new RangeError(`part numbers are 1–${S3_PART_LIMITS.maxParts}, got ${partNumber}`);
  }
}

async function listParts(
  { client, bucket: Bucket }: S3MultipartDeps,
  key: string,
  uploadId: string,
  opts: OptionsOf<"listParts"> = {},
): Promise<StoredPart[] | null> {
  assertValidKey(key);
  const parts: StoredPart[] = [];
  // One part: the page after the one before it, one long.
  let marker = opts.only === undefined ? undefined : String(opts.only - 1);
  const MaxParts = opts.only === undefined ? undefined : 1;
  for (;;) {
    const out = await client
      .send(
        new ListPartsCommand({
          Bucket,
          Key: key,
          UploadId: uploadId,
          PartNumberMarker: marker,
          MaxParts,
        }),
      )
      .catch((err: unknown) => {
        if (isUnsupported(err)) return null;
        throw asMultipartError(err);
      });
    if (out === null) return null;
    for (const p of out.Parts ?? []) {
      if (p.PartNumber === undefined || p.ETag === undefined) continue;
      parts.push({
        partNumber: p.PartNumber,
        sizeBytes: p.Size ?? 0,
        etag: p.ETag,
        checksum: p.ChecksumCRC32 ?? p.ChecksumSHA256 ?? null,
      });
    }
    if (opts.only !== undefined) return parts.filter((p) => p.partNumber === opts.only);
    if (!out.IsTruncated || !out.NextPartNumberMarker) return parts;
    marker = out.NextPartNumberMarker;
  }
}

async function completeUpload(
  { client, bucket: Bucket }: S3MultipartDeps,
  key: string,
  uploadId: string,
  given: Parameters<MultipartUploads["complete"]>[2],
): Promise<{ sizeBytes: number }> {
  assertValidKey(key);
  await client
    .send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: {
          Parts: given.map((p) => ({
            PartNumber: p.partNumber,
            ETag: p.etag,
            ...completeChecksum(p.checksum),
          })),
        },
      }),
    )
    .catch((err: unknown) => {
      throw asMultipartError(err);
    });
  const head = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
  return { sizeBytes: head.ContentLength ?? 0 };
}

/** A part's checksum as CompleteMultipartUpload lists it (MD5 travels in the ETag alone). */
function completeChecksum(checksum: string | null | undefined) {
  const algorithm = checksum ? checksumAlgorithmOf(checksum) : null;
  if (!checksum || !algorithm || algorithm === "md5") return {};
  return checksumField(algorithm, checksum);
}

async function abortUpload(
  { client, bucket: Bucket }: S3MultipartDeps,
  key: string,
  uploadId: string,
): Promise<void> {
  assertValidKey(key);
  await client
    .send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId: uploadId }))
    .catch((err: unknown) => {
      const e = asMultipartError(err);
      // Already completed or aborted: nothing is left to free.
      if (e instanceof MultipartError && e.problem === "no_such_upload") return;
      throw e;
    });
}

interface S3Failure {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

/** s3rver answers 405 to ListParts and AbortMultipartUpload; some stores 501. */
function isUnsupported(err: unknown): boolean {
  // cast: the AWS SDK throws ServiceExceptions with name and $metadata; both are read optionally
  const e = err as S3Failure | null;
  const status = e?.$metadata?.httpStatusCode;
  return (
    e?.name === "MethodNotAllowed" ||
    e?.name === "NotImplemented" ||
    status === 405 ||
    status === 501
  );
}

/** S3's refusals of a multipart call as MultipartErrors; anything else unchanged. */
function asMultipartError(err: unknown): unknown {
  // cast: the AWS SDK throws ServiceExceptions with name and $metadata; both are read optionally
  const e = err as S3Failure | null;
  const said = e?.message ? `: ${e.message}` : "";
  if (isUnsupported(err)) {
    return new MultipartError("unsupported", `the store refused the call (${e?.name})${said}`);
  }
  switch (e?.name) {
    case "NoSuchUpload":
      return new MultipartError("no_such_upload", `the upload was completed or aborted${said}`);
    case "InvalidPart":
    case "InvalidPartOrder":
    case "EntityTooSmall":
    case "BadDigest":
    case "InvalidRequest":
      return new MultipartError("invalid_part", `S3 refused the parts (${e.name})${said}`);
    default:
      return err;
  }
}
