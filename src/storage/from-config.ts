/** Builds the configured BlobStore: local disk under DATA_DIR (default) or S3-compatible. */
import path from "node:path";
import type { Config } from "../config.js";
import type { Signer } from "../signing.js";
import type { BlobStore } from "./blob-store.js";
import { createLocalBlobStore, type LocalBlobStore } from "./local-store.js";

export async function storageFromConfig(
  config: Config,
  publicUrl: string,
  signer: Signer,
  now?: () => number,
): Promise<BlobStore | LocalBlobStore> {
  const s = config.storage;
  if (s.kind === "s3") {
    // The AWS SDK is loaded only by deployments that use S3.
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
  return createLocalBlobStore({
    rootDir: s.dir ?? path.join(config.dataDir, "files"),
    publicBaseUrl: publicUrl,
    signer,
    now,
  });
}
