/**
 * Moves the local store's objects to another BlobStore (S3) under the same keys, so every key
 * the database names finds its file. The local layout is walked directly (see local-disk.ts):
 * an object is a file whose path below the root is its key; dot-prefixed names are the store's
 * own temp (`.part`) and content-type (`.NAME.meta`) files and are never objects. Each object
 * is streamed up with its stored content type and checked with a HEAD afterwards.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { inLanes } from "../../domain/lanes.js";
import type { BlobStore } from "../../storage/blob-store.js";
import { isValidKey } from "../../storage/keys.js";
import { createLocalDisk } from "../../storage/local-disk.js";
import type { Problem } from "./report.js";

/** Sent for an object whose content-type sidecar is missing (S3 needs some type). */
const FALLBACK_CONTENT_TYPE = "application/octet-stream";
/** Keys are at most 8 segments deep; deeper folders cannot hold objects. */
const MAX_DEPTH = 8;

interface LocalObject {
  key: string;
  path: string;
  sizeBytes: number;
  contentType: string | null;
}

interface LocalScan {
  objects: LocalObject[];
  bytes: number;
  /** Paths (relative to the root) that are not objects and are left behind. */
  skipped: string[];
}

/** Every object of the local store under `rootDir` (a missing root is an empty store). */
export async function scanLocalStore(rootDir: string): Promise<LocalScan> {
  const disk = createLocalDisk(rootDir);
  const scan: LocalScan = { objects: [], bytes: 0, skipped: [] };
  const walk = async (dir: string, segments: string[]): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(
      (err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT" && segments.length === 0) return [];
        throw err;
      },
    );
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      const rel = [...segments, e.name];
      if (e.name.startsWith(".")) {
        // Sidecars are read with their object; an unfinished upload is not an object.
        if (e.name.endsWith(".part")) scan.skipped.push(rel.join("/"));
      } else if (e.isDirectory() && rel.length < MAX_DEPTH) {
        await walk(path.join(dir, e.name), rel);
      } else if (e.isFile() && isValidKey(rel.join("/"))) {
        const key = rel.join("/");
        const info = await disk.head(key);
        if (!info) continue;
        scan.objects.push({ key, path: disk.pathFor(key), ...info });
        scan.bytes += info.sizeBytes;
      } else {
        scan.skipped.push(rel.join("/"));
      }
    }
  };
  await walk(disk.rootDir, []);
  return scan;
}

interface UploadOptions {
  /** Objects in flight at once. */
  concurrency?: number;
  onObject?: (done: number, total: number) => void;
}

/**
 * Uploads every object to `store` and HEADs it back; returns a problem for each object whose
 * size or content type did not arrive intact. Uploading again overwrites, so a rerun is safe.
 */
export async function uploadObjects(
  objects: readonly LocalObject[],
  store: BlobStore,
  opts: UploadOptions = {},
): Promise<Problem[]> {
  const problems: Problem[] = [];
  let done = 0;
  await inLanes(
    objects,
    async (obj) => {
      const problem = await uploadOne(obj, store);
      if (problem) problems.push(problem);
      opts.onObject?.(++done, objects.length);
    },
    { lanes: opts.concurrency ?? 4 },
  );
  return problems.sort((a, b) => (a.subject < b.subject ? -1 : 1));
}

async function uploadOne(obj: LocalObject, store: BlobStore): Promise<Problem | null> {
  const type = obj.contentType ?? FALLBACK_CONTENT_TYPE;
  await store.uploadFromFile(obj.key, obj.path, type);
  const head = await store.head(obj.key);
  if (!head) return { check: "file", subject: obj.key, detail: "not found after upload" };
  if (head.sizeBytes !== obj.sizeBytes) {
    return {
      check: "file",
      subject: obj.key,
      detail: `${head.sizeBytes} bytes in the bucket, ${obj.sizeBytes} on disk`,
    };
  }
  if (head.contentType !== type) {
    return {
      check: "file",
      subject: obj.key,
      detail: `content type ${head.contentType} in the bucket, ${type} on disk`,
    };
  }
  return null;
}
