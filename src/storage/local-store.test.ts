import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  bytes,
  listAllFiles,
  makeTempDir,
  manualClock,
  SECRET,
  streamOf,
} from "../../test/storage/temp-files.js";
import { restoreInputKey } from "../kinds/restore/services/definition.js";
import { createSigner } from "../signing.js";
import { BlobNotFoundError } from "./blob-store.js";
import { InvalidKeyError } from "./keys.js";
import { createLocalBlobStore, type LocalBlobStore } from "./local-store.js";
import { signToken } from "./local-token.js";

const BASE = "http://127.0.0.1:8080";
const KEY = restoreInputKey("rj_test1");

let root: string;
let cleanup: () => Promise<void>;
let clock: ReturnType<typeof manualClock>;
let store: LocalBlobStore;
let app: Hono;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir("kinora-local-"));
  clock = manualClock();
  store = createLocalBlobStore({
    rootDir: root,
    publicBaseUrl: BASE,
    signer: SECRET,
    now: clock.now,
  });
  app = new Hono().route("/files", store.routes());
});
afterEach(() => cleanup());

function put(url: string, body: BodyInit | null, headers: Record<string, string>) {
  return app.request(url, { method: "PUT", body, headers, duplex: "half" } as RequestInit);
}

async function ticket(sizeBytes = 1000, contentType = "video/mp4") {
  return store.presignUpload(KEY, { contentType, sizeBytes, expiresInSec: 600 });
}

async function expectNothingStored() {
  expect(await listAllFiles(root)).toEqual([]);
  expect(await store.head(KEY)).toBeNull();
}

describe("local store upload URL", () => {
  it("stores exactly the uploaded bytes and serves them back, whole and by range", async () => {
    const data = bytes(1000);
    const t = await ticket();
    expect(t.url.startsWith(`${BASE}/files/u/`)).toBe(true);
    expect(t.headers).toEqual({ "Content-Type": "video/mp4" });
    expect(t.expiresAt.getTime()).toBe(clock.now() + 600_000);

    const res = await put(t.url, data, t.headers);
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toMatch(/^"[0-9a-f-]+"$/);
    expect(await store.head(KEY)).toEqual({ sizeBytes: 1000, contentType: "video/mp4" });
    expect(await listAllFiles(root)).toEqual([
      "restore/rj_test1/.input.meta",
      "restore/rj_test1/input",
    ]);

    const url = await store.presignDownload(KEY, { expiresInSec: 60, filename: "old film.mp4" });
    const full = await app.request(url);
    expect(full.status).toBe(200);
    expect(full.headers.get("content-length")).toBe("1000");
    expect(full.headers.get("content-type")).toBe("video/mp4");
    expect(full.headers.get("content-disposition")).toBe('attachment; filename="old film.mp4"');
    expect(full.headers.get("accept-ranges")).toBe("bytes");
    expect(new Uint8Array(await full.arrayBuffer())).toEqual(data);

    const part = await app.request(url, { headers: { Range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe("bytes 100-199/1000");
    expect(part.headers.get("content-length")).toBe("100");
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(data.slice(100, 200));

    const tail = await app.request(url, { headers: { Range: "bytes=-10" } });
    expect(tail.headers.get("content-range")).toBe("bytes 990-999/1000");
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(data.slice(990));

    const beyond = await app.request(url, { headers: { Range: "bytes=1000-" } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe("bytes */1000");
    expect(await beyond.json()).toMatchObject({
      detail: expect.stringMatching(/outside/),
      code: "range_not_satisfiable",
    });
  });

  it("serves an inline link for playing in a browser, bound by the signature", async () => {
    const t = await ticket(20);
    await put(t.url, bytes(20), t.headers);
    const url = await store.presignDownload(KEY, {
      expiresInSec: 60,
      inline: true,
      filename: "clip.mp4",
    });
    const res = await app.request(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('inline; filename="clip.mp4"');
    // Flipping the disposition in the payload breaks the signature.
    const attachment = await store.presignDownload(KEY, { expiresInSec: 60, filename: "clip.mp4" });
    const [kid, payload, mac] = (attachment.split("/d/")[1] as string).split(".");
    const claims = JSON.parse(Buffer.from(payload as string, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, i: 1 })).toString("base64url");
    expect((await app.request(`${BASE}/files/d/${kid}.${forged}.${mac}`)).status).toBe(403);
  });

  it("answers HEAD with the headers and no body, and ignores a stale If-Range", async () => {
    const data = bytes(50);
    const t = await ticket(50);
    const etag = (await put(t.url, data, t.headers)).headers.get("etag");
    const url = await store.presignDownload(KEY, { expiresInSec: 60, contentType: "video/webm" });
    const head = await app.request(url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("50");
    expect(head.headers.get("content-type")).toBe("video/webm");
    expect(head.headers.get("content-disposition")).toBe("attachment");
    expect(head.headers.get("etag")).toBe(etag);
    expect(await head.text()).toBe("");

    const stale = await app.request(url, {
      headers: { Range: "bytes=0-9", "If-Range": '"other"' },
    });
    expect(stale.status).toBe(200);
    const fresh = await app.request(url, { headers: { Range: "bytes=0-9", "If-Range": etag! } });
    expect(fresh.status).toBe(206);
  });

  it("refuses a tampered token with 403 and stores nothing", async () => {
    const t = await ticket();
    const [kid, payload, sig] = t.url.split("/u/")[1]!.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    claims.n = 5;
    const forged = Buffer.from(JSON.stringify(claims)).toString("base64url");
    const res = await put(`${BASE}/files/u/${kid}.${forged}.${sig}`, bytes(5), t.headers);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      detail: expect.stringMatching(/signature does not match/),
      code: "link_invalid",
    });
    const flipped = t.url.slice(0, -2) + (t.url.endsWith("AA") ? "BB" : "AA");
    expect((await put(flipped, bytes(1000), t.headers)).status).toBe(403);
    const garbage = await put(`${BASE}/files/u/not-a-token`, bytes(1000), t.headers);
    expect(garbage.status).toBe(403);
    expect((await garbage.json()).detail).toMatch(/malformed/);
    await expectNothingStored();
  });

  it("refuses an expired token with 403 and stores nothing", async () => {
    const t = await ticket();
    clock.advance(600_000);
    const res = await put(t.url, bytes(1000), t.headers);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      detail: `this link expired at ${t.expiresAt.toISOString()}; ask for a new one`,
      code: "link_invalid",
    });
    await expectNothingStored();
  });

  it("refuses a declared length over the bound size with 413 before reading the body", async () => {
    const t = await ticket();
    const res = await put(t.url, bytes(1001), { ...t.headers, "Content-Length": "1001" });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      detail: "this link accepts exactly 1000 bytes; Content-Length is 1001",
      code: "too_large",
    });
    await expectNothingStored();
  });

  it("stops reading a streamed body as soon as it passes the bound size", async () => {
    const t = await ticket();
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(bytes(400));
      },
    });
    const res = await put(t.url, endless, t.headers);
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThan(10);
    await expectNothingStored();
  });

  it("refuses a shorter body with 400 naming both sizes", async () => {
    const t = await ticket();
    const res = await put(t.url, streamOf(bytes(300), bytes(300)), t.headers);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      detail: "expected 1000 bytes, got 600",
      code: "upload_mismatch",
    });
    const declared = await put(t.url, bytes(999), { ...t.headers, "Content-Length": "999" });
    expect(declared.status).toBe(400);
    expect(await declared.json()).toMatchObject({
      detail: expect.stringMatching(/exactly 1000 bytes; Content-Length is 999/),
      code: "upload_mismatch",
    });
    await expectNothingStored();
  });

  it("refuses a Content-Type other than the bound one with 400", async () => {
    const t = await ticket();
    const res = await put(t.url, bytes(1000), { "Content-Type": "text/html" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      detail: 'Content-Type must be "video/mp4" as given in upload_headers, got "text/html"',
      code: "upload_mismatch",
    });
    await expectNothingStored();
  });

  it("refuses a download token used to upload, and an upload token used to download", async () => {
    const down = await store.presignDownload(KEY, { expiresInSec: 60 });
    const token = down.split("/d/")[1]!;
    const res = await put(`${BASE}/files/u/${token}`, bytes(1000), { "Content-Type": "video/mp4" });
    expect(res.status).toBe(403);
    expect((await res.json()).detail).toMatch(/download link/);
    await expectNothingStored();

    const up = (await ticket()).url.split("/u/")[1]!;
    const get = await app.request(`${BASE}/files/d/${up}`);
    expect(get.status).toBe(403);
    expect((await get.json()).detail).toMatch(/upload link/);
  });

  it("answers 405 for other methods and 404 for a link to nothing", async () => {
    const t = await ticket();
    const post = await app.request(t.url, { method: "POST", body: "x" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("PUT");
    expect((await post.json()).code).toBe("method_not_allowed");
    const missing = await app.request(await store.presignDownload(KEY, { expiresInSec: 60 }));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      detail: expect.stringMatching(/nothing is stored/),
      code: "not_found",
    });
  });

  it("refuses path-traversal keys when signing and when a signed token carries one", async () => {
    for (const key of [
      "../etc/passwd",
      "restore/../../x",
      "/abs",
      "a//b",
      "a/./b",
      ".hidden",
      "a\\b",
      "",
    ]) {
      await expect(
        store.presignUpload(key, { contentType: "video/mp4", sizeBytes: 1, expiresInSec: 60 }),
      ).rejects.toBeInstanceOf(InvalidKeyError);
    }
    await expect(store.head("../x")).rejects.toBeInstanceOf(InvalidKeyError);
    // Even with the real secret, a token naming a bad key is refused.
    const evil = signToken(
      {
        purpose: "upload",
        key: "../escape",
        contentType: "video/mp4",
        sizeBytes: 1,
        expiresAtSec: 2e9,
      },
      createSigner(SECRET),
    );
    const res = await put(`${BASE}/files/u/${evil}`, bytes(1), { "Content-Type": "video/mp4" });
    expect(res.status).toBe(403);
    const encoded = await put(`${BASE}/files/u/..%2F..%2Fescape`, bytes(1), {
      "Content-Type": "video/mp4",
    });
    expect(encoded.status).toBe(403);
    await expectNothingStored();
  });

  it("refuses sizes over maxUploadBytes and lifetimes over 7 days when signing", async () => {
    const small = createLocalBlobStore({
      rootDir: root,
      publicBaseUrl: BASE,
      signer: SECRET,
      maxUploadBytes: 10,
    });
    await expect(
      small.presignUpload(KEY, { contentType: "video/mp4", sizeBytes: 11, expiresInSec: 60 }),
    ).rejects.toThrow(/sizeBytes must be an integer from 0 to 10/);
    await expect(
      small.presignUpload(KEY, { contentType: "video/mp4", sizeBytes: 1, expiresInSec: 8 * 86400 }),
    ).rejects.toThrow(/expiresInSec/);
    await expect(
      small.presignUpload(KEY, {
        contentType: "video/mp4\r\nX: y",
        sizeBytes: 1,
        expiresInSec: 60,
      }),
    ).rejects.toThrow(/contentType/);
  });
});

describe("local store under load", () => {
  it("leaves exactly one complete upload when two race for the same key", async () => {
    const [a, b] = [bytes(200_000, 1), bytes(200_000, 2)];
    const t = await ticket(200_000);
    const results = await Promise.all([put(t.url, a, t.headers), put(t.url, b, t.headers)]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    const stored = await readFile(join(root, KEY));
    expect(stored.equals(a) || stored.equals(b)).toBe(true);
    expect(await listAllFiles(root)).toEqual([
      "restore/rj_test1/.input.meta",
      "restore/rj_test1/input",
    ]);
  });

  it.runIf(process.platform === "linux")(
    "closes the file after HEAD and refused ranges",
    async () => {
      const t = await ticket(10);
      await put(t.url, bytes(10), t.headers);
      const url = await store.presignDownload(KEY, { expiresInSec: 60 });
      const openFds = async () => (await readdir("/proc/self/fd")).length;
      const before = await openFds();
      for (let i = 0; i < 30; i++) {
        await app.request(url, { method: "HEAD" });
        await (await app.request(url, { headers: { Range: "bytes=50-" } })).text();
        await (await app.request(url)).arrayBuffer();
      }
      expect(await openFds()).toBeLessThanOrEqual(before + 2);
    },
  );
});

describe("local store file operations", () => {
  it("copies files in and out, reports head, and deletes idempotently", async () => {
    const src = join(root, "..", `src-${Date.now()}.bin`);
    await writeFile(src, bytes(4096));
    await store.uploadFromFile(KEY, src, "video/mp4");
    expect(await store.head(KEY)).toEqual({ sizeBytes: 4096, contentType: "video/mp4" });

    const dest = join(root, "..", `dest-${Date.now()}.bin`);
    await store.downloadToFile(KEY, dest);
    expect(new Uint8Array(await readFile(dest))).toEqual(bytes(4096));

    await store.delete(KEY);
    await store.delete(KEY);
    await expectNothingStored();
  });

  it("fails a download of a missing key or an aborted download without creating the file", async () => {
    const dest = join(root, "out.bin");
    await expect(store.downloadToFile(KEY, dest)).rejects.toBeInstanceOf(BlobNotFoundError);
    const t = await ticket(10);
    await put(t.url, bytes(10), t.headers);
    const controller = new AbortController();
    controller.abort();
    await expect(store.downloadToFile(KEY, dest, controller.signal)).rejects.toThrow();
    expect(await listAllFiles(root)).toEqual([
      "restore/rj_test1/.input.meta",
      "restore/rj_test1/input",
    ]);
  });

  it("encodes a non-ASCII filename for the download", async () => {
    const t = await ticket(1);
    await put(t.url, bytes(1), t.headers);
    const url = await store.presignDownload(KEY, {
      expiresInSec: 60,
      filename: 'Großvater "1952".mp4',
    });
    const res = await app.request(url, { method: "HEAD" });
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="Gro_vater _1952_.mp4"; filename*=UTF-8''Gro%C3%9Fvater%20%221952%22.mp4`,
    );
  });
});
