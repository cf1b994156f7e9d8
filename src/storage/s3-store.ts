/**
 * The at-scale BlobStore: any S3-compatible store. Callers upload and download
 * straight to the store through presigned URLs; kinora's own processes use the
 * SDK with streams so a multi-gigabyte file never sits in memory.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import {
  assertContentType,
  assertDownloadRequest,
  assertUploadRequest,
  attachmentDisposition,
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  type UploadTicket,
} from "./blob-store.js";
import { nodeChunks, writeExactlyAtomic } from "./file-io.js";
import { assertValidKey } from "./keys.js";
import { s3MultipartUploads } from "./s3-multipart.js";

/** S3's limit for a single PUT; larger objects are uploaded in parts (s3-multipart.ts). */
const MAX_SINGLE_PUT_BYTES = 5 * 1024 ** 3;

interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** For S3-compatible stores (MinIO, R2, …); omit for AWS. */
  endpoint?: string;
  forcePathStyle?: boolean;
  /** Omit both to use the SDK's default credential chain (env, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Endpoint callers reach, when it differs from the one kinora uses (e.g. an internal hostname). */
  publicEndpoint?: string;
  /** Largest upload a URL may be signed for; defaults to S3's single-PUT limit. */
  maxUploadBytes?: number;
  /** Clock in epoch milliseconds used to sign URLs; injected by tests. */
  now?: () => number;
}

export type S3BlobStore = BlobStore & { readonly kind: "s3" };

function clientConfig(opts: S3BlobStoreOptions, endpoint: string | undefined): S3ClientConfig {
  const credentials =
    opts.accessKeyId !== undefined && opts.secretAccessKey !== undefined
      ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey }
      : undefined;
  return {
    region: opts.region,
    endpoint,
    forcePathStyle: opts.forcePathStyle,
    credentials,
    // Otherwise the SDK adds checksum headers a presigned PUT's sender cannot
    // know, and which many S3-compatible stores reject.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  };
}

/** What every call of the store needs: the clients, the bucket and the limits. */
interface S3Context {
  client: S3Client;
  /** Signs the URLs callers use (the public endpoint's client when there is one). */
  presigner: S3Client;
  bucket: string;
  maxUploadBytes: number;
  now: () => number;
}

/** An S3 (or compatible) bucket as a blob store, with presigned links. */
export function createS3BlobStore(opts: S3BlobStoreOptions): S3BlobStore {
  const client = new S3Client(clientConfig(opts, opts.endpoint));
  const ctx: S3Context = {
    client,
    presigner: opts.publicEndpoint ? new S3Client(clientConfig(opts, opts.publicEndpoint)) : client,
    bucket: opts.bucket,
    maxUploadBytes: Math.min(opts.maxUploadBytes ?? MAX_SINGLE_PUT_BYTES, MAX_SINGLE_PUT_BYTES),
    now: opts.now ?? Date.now,
  };
  return {
    kind: "s3",
    multipart: s3MultipartUploads({
      client,
      presigner: ctx.presigner,
      bucket: ctx.bucket,
      now: ctx.now,
    }),
    presignUpload: (key, uploadOpts) => presignUpload(ctx, key, uploadOpts),
    presignDownload: (key, downloadOpts) => presignDownload(ctx, key, downloadOpts),
    head: (key) => headObject(ctx, key),
    downloadToFile: (key, destPath, signal) => downloadToFile(ctx, key, destPath, signal),
    uploadFromFile: (key, srcPath, contentType) => uploadFromFile(ctx, key, srcPath, contentType),
    delete: (key) => deleteObject(ctx, key),
  };
}

async function presignUpload(
  { presigner, bucket: Bucket, maxUploadBytes, now }: S3Context,
  key: string,
  request: Parameters<BlobStore["presignUpload"]>[1],
): Promise<UploadTicket> {
  assertUploadRequest(key, request, maxUploadBytes);
  const { contentType, sizeBytes, expiresInSec, upTo } = request;
  const signingDate = new Date(now());
  const command = new PutObjectCommand({
    Bucket,
    Key: key,
    ContentType: contentType,
    // A declared size is bound into the signature; an undeclared one cannot be capped here.
    ...(upTo ? {} : { ContentLength: sizeBytes }),
  });
  // content-length and host are signed by default; content-type must be asked for.
  const url = await getSignedUrl(presigner, command, {
    expiresIn: expiresInSec,
    signingDate,
    signableHeaders: new Set(["content-type"]),
  });
  return {
    url,
    headers: { "Content-Type": contentType },
    // SigV4 counts whole seconds from the signing time.
    expiresAt: new Date(Math.floor(signingDate.getTime() / 1000) * 1000 + expiresInSec * 1000),
  };
}

async function presignDownload(
  { presigner, bucket: Bucket, now }: S3Context,
  key: string,
  request: Parameters<BlobStore["presignDownload"]>[1],
): Promise<string> {
  assertDownloadRequest(key, request);
  const { expiresInSec, filename, contentType, inline } = request;
  const command = new GetObjectCommand({
    Bucket,
    Key: key,
    ResponseContentDisposition: attachmentDisposition(filename, inline ? "inline" : "attachment"),
    ResponseContentType: contentType,
  });
  return getSignedUrl(presigner, command, {
    expiresIn: expiresInSec,
    signingDate: new Date(now()),
  });
}

async function headObject(
  { client, bucket: Bucket }: S3Context,
  key: string,
): Promise<BlobInfo | null> {
  assertValidKey(key);
  try {
    const out = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
    return { sizeBytes: out.ContentLength ?? 0, contentType: out.ContentType ?? null };
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

async function downloadToFile(
  { client, bucket: Bucket }: S3Context,
  key: string,
  destPath: string,
  signal?: AbortSignal,
): Promise<void> {
  assertValidKey(key);
  const out = await client
    .send(new GetObjectCommand({ Bucket, Key: key }), { abortSignal: signal })
    .catch((err: unknown) => {
      throw isNotFound(err) ? new BlobNotFoundError(key) : err;
    });
  const body = out.Body;
  if (!(body instanceof Readable) || out.ContentLength === undefined) {
    throw new Error(`S3 GetObject for ${key} returned no streamable body with a length`);
  }
  try {
    const outcome = await writeExactlyAtomic(nodeChunks(body), destPath, out.ContentLength, {
      durable: false,
      signal,
    });
    if (!outcome.ok) {
      throw new Error(`S3 sent ${outcome.bytes} bytes for ${key}, expected ${out.ContentLength}`);
    }
  } finally {
    body.destroy();
  }
}

async function uploadFromFile(
  { client, bucket: Bucket }: S3Context,
  key: string,
  srcPath: string,
  contentType: string,
): Promise<void> {
  assertValidKey(key);
  assertContentType(contentType);
  const { size } = await stat(srcPath);
  if (size > MAX_SINGLE_PUT_BYTES) {
    throw new RangeError(`${srcPath} is ${size} bytes; a single S3 PUT takes at most 5 GiB`);
  }
  const stream = createReadStream(srcPath);
  try {
    await client.send(
      new PutObjectCommand({
        Bucket,
        Key: key,
        Body: stream,
        ContentLength: size,
        ContentType: contentType,
      }),
    );
  } finally {
    stream.destroy();
  }
}

async function deleteObject({ client, bucket: Bucket }: S3Context, key: string): Promise<void> {
  assertValidKey(key);
  // S3 answers 204 for a missing key too, so this is idempotent as it stands.
  await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
}

function isNotFound(err: unknown): boolean {
  // cast: the AWS SDK throws ServiceExceptions with name and $metadata; both are read optionally
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === "NotFound" || e?.name === "NoSuchKey" || e?.$metadata?.httpStatusCode === 404;
}
