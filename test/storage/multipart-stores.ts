/**
 * Stores for tests of uploads in parts, reached over real HTTP on 127.0.0.1: the local store
 * behind @hono/node-server, and S3 as s3rver behind the multipart fake (ListParts, Abort,
 * checksums: test/fakes/s3-multipart-front.ts) behind the SigV4 check of presigned URLs — or
 * s3rver alone, which refuses ListParts and Abort. Plus the helpers that send parts.
 */
import { createHash } from "node:crypto";
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type ServerType, serve } from "@hono/node-server";
import { Hono } from "hono";
import S3rver from "s3rver";
import type { BlobStore, UploadGuard, UploadTicket } from "../../src/storage/blob-store.js";
import { createLocalBlobStore } from "../../src/storage/local-store.js";
import { createS3BlobStore } from "../../src/storage/s3-store.js";
import { type S3MultipartFront, startS3MultipartFront } from "../fakes/s3-multipart-front.js";
import { startSigV4Proxy } from "../fakes/sigv4-proxy.js";
import { listAllFiles, makeTempDir, SECRET } from "./temp-files.js";

export const TEST_BUCKET = "kinora-mp";

/** A store under test and how to look behind it. */
export interface PartsStore {
  name: string;
  store: BlobStore;
  /** Every file the store keeps on disk (its objects, parts and records), relative to its folder. */
  files(): Promise<string[]>;
  /** The local store's folder (its files as `files` names them lie under it). */
  root?: string;
  /** The fake in front of s3rver, on S3 with it. */
  front?: S3MultipartFront;
  /** The local store asks this whether an upload may land (the services' upload guard). */
  setGuard(guard: UploadGuard | undefined): void;
  close(): Promise<void>;
}

/** The local store on a real HTTP server. */
export async function localPartsStore(): Promise<PartsStore> {
  const { dir, cleanup } = await makeTempDir("kinora-mp-local-");
  let app: Hono | undefined;
  let guard: UploadGuard | undefined;
  const server: ServerType = serve({
    fetch: (r, env) => (app as Hono).fetch(r, env),
    port: 0,
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  const store = createLocalBlobStore({
    rootDir: dir,
    publicBaseUrl: `http://127.0.0.1:${port}`,
    signer: SECRET,
  });
  app = new Hono();
  app.route(
    "/files",
    store.routes({
      uploadGuard: (key) => guard?.(key) ?? Promise.resolve({ ok: true, once: true }),
    }),
  );
  return {
    name: "local store",
    store,
    files: () => listAllFiles(dir),
    root: dir,
    setGuard: (g) => {
      guard = g;
    },
    async close() {
      await new Promise((r) => server.close(r));
      await cleanup();
    },
  };
}

/** S3: s3rver behind the multipart fake (or alone) behind the SigV4 check. */
export async function s3PartsStore(opts: { front?: boolean } = {}): Promise<PartsStore> {
  const withFront = opts.front ?? true;
  const { dir, cleanup } = await makeTempDir("kinora-mp-s3-");
  const s3rverDir = join(dir, "s3rver");
  const s3rver = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: s3rverDir,
    configureBuckets: [{ name: TEST_BUCKET }],
  });
  const { port } = (await s3rver.run()) as AddressInfo;
  const front = withFront
    ? await startS3MultipartFront({ targetPort: port, s3rverDir })
    : undefined;
  const entry = front ? Number(new URL(front.url).port) : port;
  const proxy = await startSigV4Proxy({ targetPort: entry, credentials: { S3RVER: "S3RVER" } });
  const store = createS3BlobStore({
    bucket: TEST_BUCKET,
    region: "us-east-1",
    endpoint: `http://127.0.0.1:${entry}`,
    publicEndpoint: proxy.url,
    forcePathStyle: true,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
  });
  return {
    name: front ? "S3 (s3rver + the multipart fake)" : "S3 (s3rver alone)",
    store,
    ...(front ? { front } : {}),
    // s3rver's own bookkeeping (the bucket's config) is not an object.
    files: async () =>
      (await listAllFiles(s3rverDir)).filter((f) => !f.endsWith("._S3rver_bucket_config.json")),
    setGuard: () => {},
    async close() {
      await proxy.close();
      await front?.close();
      await s3rver.close();
      await cleanup();
    },
  };
}

/** The base64 SHA-256 of bytes (what a part's checksum header carries). */
export const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("base64");

/** PUTs a part to its link with its headers. */
export function putPart(
  ticket: Pick<UploadTicket, "url" | "headers">,
  body: Uint8Array<ArrayBuffer>,
  extra: Record<string, string> = {},
) {
  return fetch(ticket.url, {
    method: "PUT",
    headers: { ...ticket.headers, "content-length": String(body.length), ...extra },
    body,
  });
}

/** PUTs the first `sendBytes` of `body` with the full Content-Length, then cuts the connection. */
export function putCut(
  ticket: Pick<UploadTicket, "url" | "headers">,
  body: Uint8Array,
  sendBytes: number,
): Promise<string> {
  return new Promise((resolve) => {
    const req = httpRequest(ticket.url, {
      method: "PUT",
      headers: { ...ticket.headers, "content-length": String(body.length) },
    });
    req.on("error", (err) => resolve(String((err as NodeJS.ErrnoException).code ?? err)));
    req.on("response", (res) => {
      res.resume();
      resolve(`answered ${res.statusCode}`);
    });
    req.write(body.subarray(0, sendBytes), () => setTimeout(() => req.destroy(), 50));
  });
}

/**
 * PUTs `body` with the full Content-Length, stopping after `sendBytes` with the connection held
 * open (to the server, a peer that died without a word); `resume` sends the rest.
 */
export function putHeld(
  ticket: Pick<UploadTicket, "url" | "headers">,
  body: Uint8Array,
  sendBytes: number,
): { outcome: Promise<string>; sent: Promise<void>; resume(): void; cut(): void } {
  const req = httpRequest(ticket.url, {
    method: "PUT",
    headers: { ...ticket.headers, "content-length": String(body.length) },
  });
  const outcome = new Promise<string>((resolve) => {
    req.on("error", (err) => resolve(String((err as NodeJS.ErrnoException).code ?? err)));
    req.on("response", (res) => {
      res.resume();
      resolve(`answered ${res.statusCode}`);
    });
  });
  const sent = new Promise<void>((resolve) => {
    req.write(body.subarray(0, sendBytes), () => resolve());
  });
  return {
    outcome,
    sent,
    resume: () => {
      if (!req.destroyed) req.end(body.subarray(sendBytes));
    },
    cut: () => req.destroy(),
  };
}
