/** Where files live and how callers send them: STORAGE, S3_*, UPLOAD_*. */
import path from "node:path";
import { z } from "zod";
import { PART_CHECKSUMS, type PartChecksum, S3_PART_LIMITS } from "../domain/uploads.js";
import { invalidSetting } from "./error.js";
import { byteSize, GIB, MIB } from "./values.js";

/**
 * UPLOAD_HEAP_GROWING_PERCENT's default: an API node's old generation may grow to 3× its live
 * size, room for the buffers of upload bodies (the measurements: storage/heap-headroom.ts).
 */
export const DEFAULT_UPLOAD_HEAP_GROWING_PERCENT = 200;

/** The storage settings' part of the environment's schema. */
export const StorageEnv = z.object({
  STORAGE: z.enum(["local", "s3"]).default("local"),
  STORAGE_DIR: z.string().min(1).optional(),
  STORAGE_DIRECT_IO: z.enum(["on", "off"]).default("on"),
  S3_BUCKET: z.string().min(3).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ENDPOINT: z.string().url().optional(),
  S3_PUBLIC_ENDPOINT: z.string().url().optional(),
  S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).default("false"),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  UPLOAD_SINGLE_MAX_BYTES: byteSize(5 * MIB, 5 * GIB, 256 * MIB),
  UPLOAD_PART_BYTES: byteSize(MIB, 5 * GIB, 64 * MIB),
  UPLOAD_PART_CHECKSUM: z.enum(PART_CHECKSUMS).default("crc32"),
  UPLOAD_HEAP_GROWING_PERCENT: z.coerce
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(DEFAULT_UPLOAD_HEAP_GROWING_PERCENT),
});

/** UPLOAD_SINGLE_MAX_BYTES, UPLOAD_PART_BYTES, UPLOAD_PART_CHECKSUM, UPLOAD_HEAP_GROWING_PERCENT. */
export interface UploadsConfig {
  /** A declared size above this gets an upload plan in parts instead of one upload link. */
  singleMaxBytes: number;
  /** The size of every part but the last (at least 5 MiB on S3; grown to fit 10,000 parts). */
  partBytes: number;
  /**
   * The checksum each part of a new upload carries: crc32 (default; cheap on both ends, S3
   * verifies it) or sha256 (for callers whose client only speaks SHA-256). Open uploads keep
   * the one they were planned with.
   */
  partChecksum: PartChecksum;
  /**
   * An API node's V8 heap growing factor, as (1 + this / 100) × the live heap: room for the
   * buffers of upload bodies (storage/heap-headroom.ts). 0 leaves V8 to choose.
   */
  heapGrowingPercent: number;
}

/** Where files live: a local directory or an S3 bucket. */
export type StorageConfig =
  | {
      kind: "local";
      dir: string | undefined;
      /** STORAGE_DIRECT_IO: uploads written past the page cache where the filesystem allows. */
      directIo: boolean;
    }
  | {
      kind: "s3";
      bucket: string;
      region: string;
      endpoint: string | undefined;
      publicEndpoint: string | undefined;
      forcePathStyle: boolean;
      accessKeyId: string | undefined;
      secretAccessKey: string | undefined;
    };

/** The keys are set together or not at all (none: the AWS default credential chain). */
function checkS3Keys(e: z.infer<typeof StorageEnv>): void {
  if ((e.S3_ACCESS_KEY_ID === undefined) !== (e.S3_SECRET_ACCESS_KEY === undefined)) {
    throw invalidSetting(
      "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both, or neither to use the AWS default credential chain",
    );
  }
}

/** The storage and upload settings, once their combinations are checked (ConfigError if not). */
export function storageConfig(e: z.infer<typeof StorageEnv>): {
  storage: StorageConfig;
  uploads: UploadsConfig;
} {
  const uploads = {
    singleMaxBytes: e.UPLOAD_SINGLE_MAX_BYTES,
    partBytes: e.UPLOAD_PART_BYTES,
    partChecksum: e.UPLOAD_PART_CHECKSUM,
    heapGrowingPercent: e.UPLOAD_HEAP_GROWING_PERCENT,
  };
  if (e.STORAGE === "local") {
    checkS3Keys(e);
    return {
      storage: {
        kind: "local",
        dir: e.STORAGE_DIR ? path.resolve(e.STORAGE_DIR) : undefined,
        directIo: e.STORAGE_DIRECT_IO === "on",
      },
      uploads,
    };
  }
  if (!e.S3_BUCKET) throw invalidSetting("S3_BUCKET: is required when STORAGE=s3");
  checkS3Keys(e);
  if (e.UPLOAD_PART_BYTES < S3_PART_LIMITS.minPartBytes) {
    throw invalidSetting(
      `UPLOAD_PART_BYTES: must be at least 5 MiB (${S3_PART_LIMITS.minPartBytes}) with STORAGE=s3: S3 refuses smaller parts (all but the last)`,
    );
  }
  const storage: StorageConfig = {
    kind: "s3",
    bucket: e.S3_BUCKET,
    region: e.S3_REGION,
    endpoint: e.S3_ENDPOINT,
    publicEndpoint: e.S3_PUBLIC_ENDPOINT,
    forcePathStyle: e.S3_FORCE_PATH_STYLE === "true",
    accessKeyId: e.S3_ACCESS_KEY_ID,
    secretAccessKey: e.S3_SECRET_ACCESS_KEY,
  };
  return { storage, uploads };
}
