/**
 * The local store behind a real @hono/node-server on 127.0.0.1, where uploads
 * read the raw Node request stream rather than the web body.
 */
import { createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { Readable } from "node:stream";
import { type ServerType, serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  bytes,
  listAllFiles,
  makeTempDir,
  manualClock,
  SECRET,
} from "../../test/storage/temp-files.js";
import { restoreInputKey } from "../kinds/restore/services/definition.js";
import { createLocalBlobStore, type LocalBlobStore } from "./local-store.js";

const KEY = restoreInputKey("rj_node1");
let server: ServerType;
let root: string;
let cleanup: () => Promise<void>;
let store: LocalBlobStore;
const clock = manualClock(Date.now());
/** Status of every /files request once its handler finished, and whether it had the Node stream. */
const finished: { status: number; rawStream: boolean }[] = [];

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir("kinora-node-"));
  let app: Hono | undefined;
  server = serve({ fetch: (req, env) => app!.fetch(req, env), port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  store = createLocalBlobStore({
    rootDir: root,
    publicBaseUrl: `http://127.0.0.1:${port}`,
    signer: SECRET,
    now: clock.now,
  });
  app = new Hono();
  app.use("/files/*", async (c, next) => {
    const rawStream = (c.env as { incoming?: unknown }).incoming instanceof Readable;
    await next();
    finished.push({ status: c.res.status, rawStream });
  });
  app.route("/files", store.routes());
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await cleanup();
});

beforeEach(async () => {
  await store.delete(KEY);
  finished.length = 0;
});

async function ticket(sizeBytes: number) {
  return store.presignUpload(KEY, { contentType: "video/mp4", sizeBytes, expiresInSec: 600 });
}

/** Waits until the server finished handling `n` requests (a refused client may never see the answer). */
async function handled(n: number): Promise<void> {
  for (let i = 0; i < 200 && finished.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  expect(finished.length).toBe(n);
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("local store on @hono/node-server", () => {
  it("streams an 8 MiB upload from the Node request to disk and serves ranges back", async () => {
    const data = bytes(8 * 1024 * 1024, 3);
    const t = await ticket(data.length);
    const res = await fetch(t.url, { method: "PUT", body: data, headers: t.headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeTruthy();
    await handled(1);
    expect(finished[0]).toEqual({ status: 200, rawStream: true });

    const url = await store.presignDownload(KEY, { expiresInSec: 60, filename: "a.mp4" });
    const whole = await fetch(url);
    expect(sha256(new Uint8Array(await whole.arrayBuffer()))).toBe(sha256(data));
    const part = await fetch(url, { headers: { Range: "bytes=5000000-5000099" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 5000000-5000099/${data.length}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(data.slice(5_000_000, 5_000_100));
  });

  it("refuses bad tokens, types and purposes over HTTP and stores nothing", async () => {
    const t = await ticket(100);
    const download = await store.presignDownload(KEY, { expiresInSec: 60 });
    const cases: [string, Record<string, string>, number][] = [
      [`${t.url.slice(0, -3)}xyz`, t.headers, 403],
      [t.url, { "Content-Type": "image/png" }, 400],
      [download.replace("/d/", "/u/"), t.headers, 403],
    ];
    for (const [url, headers, status] of cases) {
      const res = await fetch(url, { method: "PUT", body: bytes(100), headers });
      expect(res.status).toBe(status);
      expect(typeof (await res.json()).detail).toBe("string");
    }
    clock.advance(601_000);
    const expired = await fetch(t.url, { method: "PUT", body: bytes(100), headers: t.headers });
    expect(expired.status).toBe(403);
    expect(await listAllFiles(root)).toEqual([]);
  });

  it("cuts off a chunked body that runs past the bound size", async () => {
    const t = await ticket(100_000);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 4 * 1024 * 1024) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(bytes(64 * 1024));
      },
    });
    const res = await fetch(t.url, {
      method: "PUT",
      body,
      headers: t.headers,
      duplex: "half",
    } as RequestInit)
      .then((r) => r.status)
      .catch(() => "connection closed");
    expect([413, "connection closed"]).toContain(res);
    await handled(1);
    expect(finished[0]!.status).toBe(413);
    expect(await listAllFiles(root)).toEqual([]);
  });

  it("answers a chunked body that ends short with 400 naming both sizes", async () => {
    const t = await ticket(1000);
    const body = Readable.toWeb(Readable.from([Buffer.from(bytes(600))])) as ReadableStream;
    const res = await fetch(t.url, {
      method: "PUT",
      body,
      headers: t.headers,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      detail: "expected 1000 bytes, got 600",
      code: "upload_mismatch",
    });
    expect(await listAllFiles(root)).toEqual([]);
  });

  it("stores nothing when the client hangs up before sending its declared Content-Length", async () => {
    const t = await ticket(1000);
    const url = new URL(t.url);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `PUT ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: video/mp4\r\nContent-Length: 1000\r\n\r\n`,
    );
    socket.write(bytes(600));
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    await handled(1);
    expect(await listAllFiles(root)).toEqual([]);
    expect(await store.head(KEY)).toBeNull();
  });
});
