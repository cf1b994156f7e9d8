/**
 * The app the tests of a restore's file in parts run against, on each store: a restore feature
 * without an executor, files above 5 MiB sent in 5 MiB parts, storage on the local store or on
 * S3 (s3rver behind the multipart fake and the SigV4 check, over HTTP).
 */
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { createTestApp, type TestApp } from "../app.js";
import { type PartsStore, s3PartsStore } from "../storage/multipart-stores.js";

/** For `describe.each`: each store's name, and how to start it (null: the app's local store). */
export const PARTS_STORES = [
  ["local store", null],
  ["S3 (s3rver + the multipart fake)", () => s3PartsStore()],
] as const;

/** The app, the S3 store under it (none on the local store), and one close for both. */
export interface PartsApp {
  t: TestApp;
  s3: PartsStore | undefined;
  close(): Promise<void>;
}

/** Starts the app on the store `makeS3` starts (the local store when null), with `env` added. */
export async function startPartsApp(
  makeS3: (() => Promise<PartsStore>) | null,
  env: Record<string, string> = {},
): Promise<PartsApp> {
  const s3 = makeS3 ? await makeS3() : undefined;
  try {
    const t = await createTestApp({
      features: [restoreFeature({ noExecutor: true })],
      env: { UPLOAD_SINGLE_MAX_BYTES: "5MiB", UPLOAD_PART_BYTES: "5MiB", ...env },
      ...(s3 ? { platform: (p) => ({ ...p, storage: s3.store }) } : {}),
    });
    return {
      t,
      s3,
      async close() {
        await t.close();
        await s3?.close();
      },
    };
  } catch (err) {
    await s3?.close();
    throw err;
  }
}
