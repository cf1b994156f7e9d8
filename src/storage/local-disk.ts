/**
 * How the local store lays objects out under its root: the object at key
 * `a/b/c` is the file `<root>/a/b/c`, its content type sits in `<root>/a/b/.c.meta`, and an
 * upload in parts of it is the folder `<root>/a/b/.c.mp-<upload id>/` (local-multipart.ts).
 * Dot-prefixed names can never be keys (see keys.ts), so temp, metadata and part files never
 * clash with objects.
 */
import {
  type FileHandle,
  link,
  open,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  writeFile,
} from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import type { BlobInfo } from "./blob-store.js";
import { syncDir, tempPathFor, type WriteOutcome, writeExactlyAtomic } from "./file-io.js";
import { assertValidKey, InvalidKeyError } from "./keys.js";

/** A stored file opened for reading. */
export interface OpenedObject {
  fh: FileHandle;
  sizeBytes: number;
  contentType: string | null;
  etag: string;
  lastModified: Date;
}

/** Files under one directory, keys mapped safely to paths. */
export interface LocalDisk {
  readonly rootDir: string;
  /** Uploads are written past the page cache where the filesystem allows (direct-writer.ts). */
  readonly directWrites: boolean;
  pathFor(key: string): string;
  /** Stores exactly (upTo: at most) `sizeBytes` from `chunks` at key, or nothing at all. */
  write(
    key: string,
    chunks: AsyncIterable<Uint8Array>,
    sizeBytes: number,
    contentType: string,
    opts?: { upTo?: boolean; noReplace?: boolean },
  ): Promise<WriteOutcome & { etag?: string }>;
  /** An open handle on the object (so a concurrent replace cannot swap it mid-read), or null. */
  openForRead(key: string): Promise<OpenedObject | null>;
  head(key: string): Promise<BlobInfo | null>;
  /** Removes the object and every upload in parts of it. */
  remove(key: string): Promise<void>;
  /** The folder of upload `uploadId` (in parts) of key. */
  multipartDir(key: string, uploadId: string): string;
  /**
   * Makes the complete file at `srcPath` (on the same filesystem, e.g. a joined upload) the
   * object at key without copying it: renamed into place, or with `noReplace` linked so that
   * an existing object stays (false then).
   */
  adopt(
    key: string,
    srcPath: string,
    contentType: string,
    opts?: { noReplace?: boolean },
  ): Promise<boolean>;
}

/** Files under `rootDir`; `directWrites` (default on) as LocalDisk says. */
export function createLocalDisk(rootDir: string, opts: { directWrites?: boolean } = {}): LocalDisk {
  const directWrites = opts.directWrites ?? true;
  const root = resolve(rootDir);
  const pathFor = (key: string): string => {
    const path = resolve(root, ...assertValidKey(key).split("/"));
    // The key pattern already rules out traversal; this is the belt to its braces.
    if (!path.startsWith(root + sep)) throw new InvalidKeyError(`key escapes the storage root`);
    return path;
  };
  // The calls below are async so that an invalid key rejects rather than throws.
  return {
    rootDir: root,
    directWrites,
    pathFor,
    write: async (key, chunks, sizeBytes, contentType, opts = {}) =>
      writeObject(pathFor(key), chunks, sizeBytes, contentType, { ...opts, direct: directWrites }),
    openForRead: async (key) => openObject(pathFor(key)),
    head: async (key) => headObject(pathFor(key)),
    multipartDir: (key, uploadId) => multipartDirOf(pathFor(key), uploadId),
    adopt: async (key, srcPath, contentType, opts = {}) =>
      adoptFile(pathFor(key), srcPath, contentType, opts),
    remove: async (key) => removeObject(root, pathFor(key)),
  };
}

async function writeObject(
  path: string,
  chunks: AsyncIterable<Uint8Array>,
  sizeBytes: number,
  contentType: string,
  opts: { upTo?: boolean; noReplace?: boolean; direct: boolean },
): Promise<WriteOutcome & { etag?: string }> {
  const outcome = await writeExactlyAtomic(chunks, path, sizeBytes, {
    ...opts,
    durable: true,
    beforeCommit: () => writeMeta(path, { contentType }),
  });
  if (!outcome.ok) return outcome;
  const opened = await openRegular(path);
  if (!opened) return outcome;
  const stats = await opened.stat({ bigint: true });
  await opened.close();
  return { ...outcome, etag: etagOf(stats) };
}

async function openObject(path: string): Promise<OpenedObject | null> {
  const fh = await openRegular(path);
  if (!fh) return null;
  try {
    const stats = await fh.stat({ bigint: true });
    const meta = await readMeta(path);
    return {
      fh,
      sizeBytes: Number(stats.size),
      contentType: meta?.contentType ?? null,
      etag: etagOf(stats),
      lastModified: new Date(Number(stats.mtimeMs)),
    };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

async function headObject(path: string): Promise<BlobInfo | null> {
  const opened = await openObject(path);
  if (!opened) return null;
  await opened.fh.close();
  return { sizeBytes: opened.sizeBytes, contentType: opened.contentType };
}

async function adoptFile(
  path: string,
  srcPath: string,
  contentType: string,
  opts: { noReplace?: boolean },
): Promise<boolean> {
  await writeMeta(path, { contentType });
  if (opts.noReplace) {
    const linked = await link(srcPath, path).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === "EEXIST") return false;
        throw err;
      },
    );
    if (!linked) return false;
    await rm(srcPath, { force: true });
  } else {
    await rename(srcPath, path);
  }
  await syncDir(dirname(path));
  return true;
}

async function removeObject(root: string, path: string): Promise<void> {
  await rm(path, { force: true });
  await rm(metaPathFor(path), { force: true });
  // An upload in parts of the key goes with it (a job's retention deletes its files by key).
  const prefix = multipartDirOf(path, "");
  // cast: an empty list is of any element type; readdir's is string
  const siblings = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of siblings) {
    const full = join(dirname(path), name);
    if (full.startsWith(prefix)) await rm(full, { recursive: true, force: true });
  }
  // Keep the tree from filling with empty per-job folders; a folder still in use stays.
  const dir = dirname(path);
  if (dir !== root) await rmdir(dir).catch(() => {});
}

interface Meta {
  contentType: string;
}

function multipartDirOf(path: string, uploadId: string): string {
  return join(dirname(path), `.${basename(path)}.mp-${uploadId}`);
}

function metaPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.meta`);
}

async function writeMeta(path: string, meta: Meta): Promise<void> {
  const metaPath = metaPathFor(path);
  const tmp = tempPathFor(metaPath);
  await writeFile(tmp, JSON.stringify(meta), { mode: 0o600 });
  await rename(tmp, metaPath);
}

async function readMeta(path: string): Promise<Meta | null> {
  try {
    const parsed: unknown = JSON.parse(await readFile(metaPathFor(path), "utf8"));
    // cast: a sidecar this store wrote; only contentType is read, checked with typeof
    const contentType = (parsed as Partial<Meta> | null)?.contentType;
    return typeof contentType === "string" ? { contentType } : null;
  } catch {
    return null;
  }
}

/** Opens a regular file for reading; a missing file (or a folder at that path) is null. */
async function openRegular(path: string): Promise<FileHandle | null> {
  let fh: FileHandle;
  try {
    fh = await open(path, "r");
  } catch (err) {
    // cast: a failed fs call throws Node's errno error; only its code is compared
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return null;
    throw err;
  }
  const stats = await fh.stat();
  if (stats.isFile()) return fh;
  await fh.close();
  return null;
}

/** Inode, size and nanosecond mtime: changes whenever the object is replaced. */
function etagOf(stats: { ino: bigint; size: bigint; mtimeNs: bigint }): string {
  return `"${stats.ino.toString(16)}-${stats.size.toString(16)}-${stats.mtimeNs.toString(16)}"`;
}
