/**
 * The embedded-default BlobStore: files on local disk under `rootDir`, with
 * signed upload and download URLs that kinora itself serves (see
 * local-routes.ts). No state outside the disk and the secret, so a restart
 * keeps every outstanding URL valid until it expires.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { addAbortSignal } from "node:stream";
import type { Hono } from "hono";
import { createSigner, type Signer } from "../signing.js";
import {
  assertContentType,
  assertDownloadRequest,
  assertUploadRequest,
  BlobNotFoundError,
  type BlobStore,
  type UploadGuard,
  type UploadTicket,
} from "./blob-store.js";
import { nodeChunks, writeExactlyAtomic } from "./file-io.js";
import { createLocalDisk, type LocalDisk } from "./local-disk.js";
import { createLocalMultipart } from "./local-multipart.js";
import { localMultipartUploads } from "./local-multipart-store.js";
import { buildLocalRoutes } from "./local-routes.js";
import { signToken } from "./local-token.js";

/** Backstop above the spec's 2 GB restore limit; services enforce their own, smaller limits. */
const DEFAULT_MAX_UPLOAD_BYTES = 2 * 1024 ** 3;
const MIN_SECRET_LENGTH = 16;

interface LocalBlobStoreOptions {
  rootDir: string;
  /** Where callers reach kinora, e.g. http://127.0.0.1:8080 or https://example.com/kinora. */
  publicBaseUrl: string;
  /**
   * Signs the URL tokens: the platform's Signer (rotation-aware), or a secret to make one from.
   * Every node serving /files must share the secret.
   */
  signer: Signer | string;
  /** Clock in epoch milliseconds; injected by tests. */
  now?: () => number;
  maxUploadBytes?: number;
  /** Where the server mounts routes(); defaults to /files. */
  mountPath?: string;
  /** Write uploads past the page cache where the filesystem allows (default on: direct-writer.ts). */
  directWrites?: boolean;
}

/** The local store: files on disk behind signed links served by kinora itself. */
export type LocalBlobStore = BlobStore & {
  readonly kind: "local";
  /**
   * The Hono app serving upload and download URLs; mount it at `mountPath`. The guard (from
   * the services) decides whether an upload may land now; built once, on the first call.
   */
  routes(opts?: { uploadGuard?: UploadGuard }): Hono;
};

/** What signing a link needs: where links point, the signer, the size cap and the clock. */
interface LinkContext {
  baseUrl: string;
  signer: Signer;
  maxUploadBytes: number;
  /** The epoch second a link signed now for `expiresInSec` expires at. */
  expiry: (expiresInSec: number) => number;
}

/** A local store in a directory, its links signed with the server's signer. */
export function createLocalBlobStore(opts: LocalBlobStoreOptions): LocalBlobStore {
  if (typeof opts.signer === "string" && opts.signer.length < MIN_SECRET_LENGTH) {
    throw new RangeError(`the signing secret must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  const now = opts.now ?? Date.now;
  const links: LinkContext = {
    baseUrl: `${normaliseBaseUrl(opts.publicBaseUrl)}${normaliseMount(opts.mountPath ?? "/files")}`,
    signer: typeof opts.signer === "string" ? createSigner(opts.signer) : opts.signer,
    maxUploadBytes: opts.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
    expiry: (expiresInSec) => Math.floor(now() / 1000) + expiresInSec,
  };
  const { baseUrl, signer, expiry } = links;
  const disk = createLocalDisk(opts.rootDir, { directWrites: opts.directWrites });
  const parts = createLocalMultipart(disk);
  let app: Hono | undefined;
  return {
    kind: "local",
    multipart: localMultipartUploads({ parts, signer, baseUrl, expiry }),
    routes: (routeOpts = {}) => {
      app ??= buildLocalRoutes({
        disk,
        multipart: parts,
        signer,
        now,
        guard: routeOpts.uploadGuard,
      });
      return app;
    },
    presignUpload: (key, uploadOpts) => presignUpload(links, key, uploadOpts),
    presignDownload: (key, downloadOpts) => presignDownload(links, key, downloadOpts),
    head: (key) => disk.head(key),
    downloadToFile: (key, destPath, signal) => downloadToFile(disk, key, destPath, signal),
    uploadFromFile: (key, srcPath, contentType) => uploadFromFile(disk, key, srcPath, contentType),
    delete: (key) => disk.remove(key),
  };
}

async function presignUpload(
  { baseUrl, signer, maxUploadBytes, expiry }: LinkContext,
  key: string,
  request: Parameters<BlobStore["presignUpload"]>[1],
): Promise<UploadTicket> {
  assertUploadRequest(key, request, maxUploadBytes);
  const { contentType, sizeBytes, expiresInSec, upTo } = request;
  const expiresAtSec = expiry(expiresInSec);
  const token = signToken(
    { purpose: "upload", key, contentType, sizeBytes, expiresAtSec, ...(upTo ? { upTo } : {}) },
    signer,
  );
  return {
    url: `${baseUrl}/u/${token}`,
    headers: { "Content-Type": contentType },
    expiresAt: new Date(expiresAtSec * 1000),
  };
}

async function presignDownload(
  { baseUrl, signer, expiry }: LinkContext,
  key: string,
  request: Parameters<BlobStore["presignDownload"]>[1],
): Promise<string> {
  assertDownloadRequest(key, request);
  const { expiresInSec, filename, contentType, inline } = request;
  const token = signToken(
    {
      purpose: "download",
      key,
      filename,
      contentType,
      inline,
      expiresAtSec: expiry(expiresInSec),
    },
    signer,
  );
  return `${baseUrl}/d/${token}`;
}

async function downloadToFile(
  disk: LocalDisk,
  key: string,
  destPath: string,
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted();
  const opened = await disk.openForRead(key);
  if (!opened) throw new BlobNotFoundError(key);
  const stream = opened.fh.createReadStream({ autoClose: true });
  if (signal) addAbortSignal(signal, stream);
  try {
    const outcome = await writeExactlyAtomic(nodeChunks(stream), destPath, opened.sizeBytes, {
      durable: false,
      signal,
    });
    if (!outcome.ok) throw new Error(`object ${key} changed size while being copied`);
  } finally {
    stream.destroy();
  }
}

async function uploadFromFile(
  disk: LocalDisk,
  key: string,
  srcPath: string,
  contentType: string,
): Promise<void> {
  assertContentType(contentType);
  const { size } = await stat(srcPath);
  const stream = createReadStream(srcPath);
  try {
    const outcome = await disk.write(key, nodeChunks(stream), size, contentType);
    if (!outcome.ok) throw new Error(`${srcPath} changed size while being stored`);
  } finally {
    stream.destroy();
  }
}

function normaliseMount(mountPath: string): string {
  const trimmed = mountPath.replace(/\/+$/, "");
  if (trimmed !== "" && !/^\/[A-Za-z0-9/_-]*$/.test(trimmed)) {
    throw new TypeError(`mountPath must look like /files, got ${JSON.stringify(mountPath)}`);
  }
  return trimmed;
}

function normaliseBaseUrl(publicBaseUrl: string): string {
  const url = new URL(publicBaseUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`publicBaseUrl must be http(s), got ${JSON.stringify(publicBaseUrl)}`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}
