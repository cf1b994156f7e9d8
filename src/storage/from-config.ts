/** Builds the configured BlobStore: local disk under DATA_DIR (default) or S3-compatible. */
import path from "node:path";
import type { Config, StorageConfig } from "../config.js";
import type { Signer } from "../signing.js";
import type { BlobStore } from "./blob-store.js";
import { createLocalBlobStore, type LocalBlobStore } from "./local-store.js";

/** Where local files live: STORAGE_DIR, else DATA_DIR/files (whatever STORAGE is set to). */
export function localFilesDir(config: Config): string {
  const dir = config.env.STORAGE_DIR;
  return dir ? path.resolve(dir) : path.join(config.dataDir, "files");
}

/** The S3-compatible store of STORAGE=s3 settings; the AWS SDK loads only when it is used. */
export async function s3StoreFrom(
  s: Extract<StorageConfig, { kind: "s3" }>,
  now?: () => number,
): Promise<BlobStore> {
  const { createS3BlobStore } = await import("./s3-store.js");
  return createS3BlobStore({
    bucket: s.bucket,
    region: s.region,
    endpoint: s.endpoint,
    forcePathStyle: s.forcePathStyle,
    accessKeyId: s.accessKeyId,
    secretAccessKey: s.secretAccessKey,
    publicEndpoint: s.publicEndpoint,
    now,
  });
}

/** The blob store the settings name: local files or an S3 bucket. */
export async function storageFromConfig(
  config: Config,
  publicUrl: string,
  signer: Signer,
  now?: () => number,
): Promise<BlobStore | LocalBlobStore> {
  if (config.storage.kind === "s3") return s3StoreFrom(config.storage, now);
  return createLocalBlobStore({
    rootDir: localFilesDir(config),
    publicBaseUrl: publicUrl,
    signer,
    now,
    directWrites: config.storage.directIo,
  });
}
