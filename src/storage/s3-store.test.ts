/**
 * The S3 store against s3rver on 127.0.0.1, with a SigV4-checking proxy in
 * front for presigned URLs (s3rver itself does not check signatures).
 */
import { readFile, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SigV4Proxy, startSigV4Proxy } from "../../test/fakes/sigv4-proxy.js";
import { bytes, listAllFiles, makeTempDir } from "../../test/storage/temp-files.js";
import { clipImageKey } from "../kinds/clips/services/definition.js";
import { restoreInputKey, restoreOutputKey } from "../kinds/restore/services/definition.js";
import { BlobNotFoundError } from "./blob-store.js";
import { createS3BlobStore, type S3BlobStore } from "./s3-store.js";

const BUCKET = "kinora-test";
const CREDS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
let s3rver: S3rver;
let s3rverUrl: string;
let proxy: SigV4Proxy;
let dir: string;
let cleanup: () => Promise<void>;
let store: S3BlobStore;

function makeStore(now?: () => number): S3BlobStore {
  return createS3BlobStore({
    bucket: BUCKET,
    region: "us-east-1",
    endpoint: s3rverUrl,
    publicEndpoint: proxy.url,
    forcePathStyle: true,
    ...CREDS,
    now,
  });
}

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir("kinora-s3-"));
  s3rver = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: join(dir, "s3rver"),
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = (await s3rver.run()) as AddressInfo;
  s3rverUrl = `http://127.0.0.1:${port}`;
  proxy = await startSigV4Proxy({ targetPort: port, credentials: { S3RVER: "S3RVER" } });
  store = makeStore();
});

afterAll(async () => {
  await proxy?.close();
  await s3rver?.close();
  await cleanup?.();
});

function put(url: string, body: Uint8Array<ArrayBuffer>, headers: Record<string, string>) {
  return fetch(url, { method: "PUT", body, headers });
}

describe("S3 store", () => {
  it("takes a presigned PUT with the given headers, then heads, downloads and deletes", async () => {
    const key = restoreInputKey("rj_s3a");
    const data = bytes(5000);
    const t = await store.presignUpload(key, {
      contentType: "video/mp4",
      sizeBytes: 5000,
      expiresInSec: 300,
    });
    const url = new URL(t.url);
    expect(url.origin).toBe(proxy.url);
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
    expect([...url.searchParams.keys()].some((k) => k.toLowerCase().includes("checksum"))).toBe(
      false,
    );
    expect(t.headers).toEqual({ "Content-Type": "video/mp4" });

    const res = await put(t.url, data, t.headers);
    expect(res.status).toBe(200);
    expect(await store.head(key)).toEqual({ sizeBytes: 5000, contentType: "video/mp4" });

    const download = await store.presignDownload(key, { expiresInSec: 60, filename: "film.mp4" });
    const got = await fetch(download);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-disposition")).toBe('attachment; filename="film.mp4"');
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(data);

    const dest = join(dir, "downloaded.bin");
    await store.downloadToFile(key, dest);
    expect(new Uint8Array(await readFile(dest))).toEqual(data);

    await store.delete(key);
    await store.delete(key);
    expect(await store.head(key)).toBeNull();
    await expect(store.downloadToFile(key, join(dir, "missing.bin"))).rejects.toBeInstanceOf(
      BlobNotFoundError,
    );
    expect((await listAllFiles(dir)).filter((f) => f.startsWith("missing"))).toEqual([]);
  });

  it("uploads a file through the SDK as a stream", async () => {
    const key = restoreOutputKey("rj_s3b");
    const src = join(dir, "result.bin");
    await writeFile(src, bytes(300_000, 9));
    await store.uploadFromFile(key, src, "video/mp4");
    expect(await store.head(key)).toEqual({ sizeBytes: 300_000, contentType: "video/mp4" });
    const dest = join(dir, "result-copy.bin");
    await store.downloadToFile(key, dest);
    // Buffer comparison: a deep toEqual over 300k elements takes seconds.
    expect((await readFile(dest)).equals(bytes(300_000, 9))).toBe(true);
  });

  it("binds the URL, Content-Type and Content-Length: any change is refused and nothing stored", async () => {
    const key = clipImageKey("clip_s3c");
    const t = await store.presignUpload(key, {
      contentType: "image/png",
      sizeBytes: 100,
      expiresInSec: 300,
    });
    const otherKey = t.url.replace("clip_s3c", "clip_s3x");
    const longer = new URL(t.url);
    longer.searchParams.set("X-Amz-Expires", "604800");
    const attempts: [string, string, Uint8Array<ArrayBuffer>, Record<string, string>][] = [
      ["other key", otherKey, bytes(100), t.headers],
      ["longer lifetime", longer.toString(), bytes(100), t.headers],
      ["other type", t.url, bytes(100), { "Content-Type": "text/html" }],
      ["no type", t.url, bytes(100), {}],
      ["more bytes", t.url, bytes(101), t.headers],
      ["fewer bytes", t.url, bytes(99), t.headers],
    ];
    for (const [what, url, body, headers] of attempts) {
      const res = await put(url, body, headers);
      expect(res.status, what).toBe(403);
    }
    expect(proxy.refusals.slice(-attempts.length)).toEqual(
      attempts.map(() => "signature does not match the request"),
    );
    expect(await store.head(key)).toBeNull();
    expect(await store.head(clipImageKey("clip_s3x"))).toBeNull();

    // Negative control: s3rver alone would have taken the wrong type, which is why the proxy exists.
    const direct = t.url.replace(proxy.url, s3rverUrl);
    expect((await put(direct, bytes(100), { "Content-Type": "text/html" })).status).toBe(200);
    await store.delete(key);
  });

  it("refuses a presigned URL after it expires, at the proxy and at s3rver", async () => {
    const key = restoreInputKey("rj_s3d");
    const twoHoursAgo = makeStore(() => Date.now() - 2 * 3600_000);
    const t = await twoHoursAgo.presignUpload(key, {
      contentType: "video/mp4",
      sizeBytes: 10,
      expiresInSec: 3600,
    });
    expect(t.expiresAt.getTime()).toBeLessThan(Date.now());
    expect((await put(t.url, bytes(10), t.headers)).status).toBe(403);
    expect(proxy.refusals.at(-1)).toMatch(/expired/);
    const direct = await put(t.url.replace(proxy.url, s3rverUrl), bytes(10), t.headers);
    expect(direct.status).toBe(403);
    expect(await direct.text()).toMatch(/expired/i);
    expect(await store.head(key)).toBeNull();
  });
});
