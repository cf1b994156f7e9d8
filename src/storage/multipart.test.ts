/**
 * Uploads in parts on both stores, through the BlobStore seam and real HTTP: the local store
 * behind @hono/node-server, and S3 as s3rver behind the multipart fake (ListParts, Abort,
 * checksums: test/fakes/s3-multipart-front.ts) behind the SigV4 check of presigned URLs.
 * A file of five parts of 5 MiB (the last shorter) goes up out of order and in parallel.
 */
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  TEST_BUCKET as BUCKET,
  localPartsStore,
  type PartsStore,
  putCut,
  putHeld,
  putPart,
  s3PartsStore,
  sha256,
} from "../../test/storage/multipart-stores.js";
import { makeTempDir } from "../../test/storage/temp-files.js";
import { type PartPlan, partOffset, partSize, planParts } from "../domain/uploads.js";
import { type BlobStore, MultipartError, type UploadTicket } from "./blob-store.js";
import { createS3BlobStore } from "./s3-store.js";

const MIB = 1024 * 1024;
const FILE = randomBytes(4 * 5 * MIB + 3 * MIB + 17);
const PLAN: PartPlan = planParts(FILE.length, 5 * MIB);

const partBytes = (plan: PartPlan, n: number) =>
  FILE.subarray(partOffset(plan, n), partOffset(plan, n) + partSize(plan, n));

type Setup = PartsStore;
const localSetup = localPartsStore;
const s3Setup = () => s3PartsStore();
const put = putPart;

async function open(store: BlobStore, key: string, plan = PLAN) {
  const { uploadId } = await store.multipart.create(key, {
    contentType: "video/dv",
    plan,
    checksum: "sha256",
  });
  const ticket = (n: number, checksum = sha256(partBytes(plan, n))) =>
    store.multipart.presignPart(key, uploadId, {
      partNumber: n,
      sizeBytes: partSize(plan, n),
      checksum,
      expiresInSec: 600,
    });
  return { uploadId, ticket };
}

async function sendAll(ticket: (n: number) => Promise<UploadTicket>, order: number[]) {
  const etags = new Map<number, string>();
  await Promise.all(
    order.map(async (n) => {
      const res = await put(await ticket(n), partBytes(PLAN, n));
      expect(res.status, `part ${n}: ${await res.clone().text()}`).toBe(200);
      etags.set(n, res.headers.get("etag") ?? "");
    }),
  );
  return [...etags.entries()]
    .sort(([a], [b]) => a - b)
    .map(([partNumber, etag]) => ({
      partNumber,
      etag,
      checksum: sha256(partBytes(PLAN, partNumber)),
    }));
}

async function contentOf(store: BlobStore, key: string, dir: string): Promise<Buffer> {
  const { readFile } = await import("node:fs/promises");
  const dest = join(dir, `got-${Math.random().toString(36).slice(2)}`);
  await store.downloadToFile(key, dest);
  return readFile(dest);
}

describe.each([
  ["local store", localSetup],
  ["S3 (s3rver + the multipart fake)", s3Setup],
])("uploads in parts on the %s", (_name, setup) => {
  let s: Setup;
  let scratch: { dir: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    s = await setup();
    scratch = await makeTempDir("kinora-mp-got-");
  });
  afterAll(async () => {
    await s?.close();
    await scratch?.cleanup();
  });

  it("joins five parts sent out of order and in parallel into the file, byte for byte", async () => {
    const key = "restore/rj_mp1/input";
    expect(PLAN.partCount).toBe(5);
    const { uploadId, ticket } = await open(s.store, key);
    const parts = await sendAll(ticket, [4, 2, 5, 1, 3]);
    const listed = await s.store.multipart.listParts(key, uploadId);
    expect(listed?.map((p) => [p.partNumber, p.sizeBytes])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [n, partSize(PLAN, n)]),
    );
    expect(listed?.map((p) => p.etag)).toEqual(parts.map((p) => p.etag));
    const one = await s.store.multipart.listParts(key, uploadId, { only: 3 });
    expect(one?.map((p) => [p.partNumber, p.etag, p.checksum])).toEqual([
      [3, parts[2]?.etag, sha256(partBytes(PLAN, 3))],
    ]);
    expect(await s.store.multipart.listParts(key, uploadId, { only: 6 })).toEqual([]);
    expect(await s.store.multipart.complete(key, uploadId, parts)).toEqual({
      sizeBytes: FILE.length,
    });
    expect(await s.store.head(key)).toEqual({ sizeBytes: FILE.length, contentType: "video/dv" });
    expect((await contentOf(s.store, key, scratch.dir)).equals(FILE)).toBe(true);
    // Completing twice: the upload is gone; the object stays as it is.
    await expect(s.store.multipart.complete(key, uploadId, parts)).rejects.toMatchObject({
      problem: "no_such_upload",
    });
    expect((await s.store.head(key))?.sizeBytes).toBe(FILE.length);
    await s.store.delete(key);
  });

  it("refuses a part whose bytes do not match its checksum, and keeps nothing of it", async () => {
    const key = "restore/rj_mp2/input";
    const { uploadId, ticket } = await open(s.store, key);
    const damaged = Buffer.from(partBytes(PLAN, 2));
    damaged[1000] = (damaged[1000] ?? 0) ^ 0xff;
    const res = await put(await ticket(2), damaged);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/BadDigest|does not match its x-amz-checksum-sha256/);
    expect(await s.store.multipart.listParts(key, uploadId)).toEqual([]);
    // Sent again whole, it is taken.
    expect((await put(await ticket(2), partBytes(PLAN, 2))).status).toBe(200);
    expect((await s.store.multipart.listParts(key, uploadId))?.map((p) => p.partNumber)).toEqual([
      2,
    ]);
    await s.store.multipart.abort(key, uploadId);
  });

  it("refuses a part larger than the plan and a checksum header other than the link's", async () => {
    const key = "restore/rj_mp3/input";
    const { uploadId, ticket } = await open(s.store, key);
    const longer = Buffer.concat([partBytes(PLAN, 1), Buffer.from("x")]);
    const big = await put(await ticket(1, sha256(longer)), longer);
    expect([403, 413]).toContain(big.status);
    const other = await put(await ticket(1), partBytes(PLAN, 1), {
      "x-amz-checksum-sha256": sha256(Buffer.from("something else")),
    });
    expect([400, 403]).toContain(other.status);
    expect(await s.store.multipart.listParts(key, uploadId)).toEqual([]);
    await expect(
      s.store.multipart.presignPart(key, uploadId, {
        partNumber: 1,
        sizeBytes: 1,
        checksum: "nope",
        expiresInSec: 60,
      }),
    ).rejects.toThrow(/checksum|bytes/);
    await s.store.multipart.abort(key, uploadId);
  });

  it("refuses to complete with a part missing; the parts stay for a resume", async () => {
    const key = "restore/rj_mp4/input";
    const { uploadId, ticket } = await open(s.store, key);
    const parts = await sendAll(ticket, [1, 2, 3, 5]);
    const err = await s.store.multipart
      .complete(key, uploadId, [
        ...parts.slice(0, 3),
        { partNumber: 4, etag: '"0"', checksum: sha256(partBytes(PLAN, 4)) },
        parts[3]!,
      ])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MultipartError);
    expect((err as MultipartError).problem).toBe("invalid_part");
    expect(await s.store.head(key)).toBeNull();
    expect((await s.store.multipart.listParts(key, uploadId))?.length).toBe(4);
    await s.store.multipart.abort(key, uploadId);
  });

  it("takes a part again after its connection broke mid-body", async () => {
    const key = "restore/rj_mp5/input";
    const { uploadId, ticket } = await open(s.store, key);
    const cut = await putCut(await ticket(3), partBytes(PLAN, 3), 2 * MIB);
    expect(cut).not.toBe("answered 200");
    expect(await s.store.multipart.listParts(key, uploadId)).toEqual([]);
    const parts = await sendAll(ticket, [1, 2, 3, 4, 5]);
    await s.store.multipart.complete(key, uploadId, parts);
    expect((await contentOf(s.store, key, scratch.dir)).equals(FILE)).toBe(true);
    await s.store.delete(key);
  });

  it("takes a part's retry while its first PUT still hangs; the first then changes nothing", async () => {
    const key = "restore/rj_mp8/input";
    const { uploadId, ticket } = await open(s.store, key);
    // The first PUT sends 1 MiB and goes quiet, as a connection that died without a word does;
    // the bytes it holds back are damaged, so any of them landing would show in the file.
    const damaged = Buffer.from(partBytes(PLAN, 3));
    damaged.fill(0, MIB);
    const first = putHeld(await ticket(3), damaged, MIB);
    await first.sent;
    await new Promise((r) => setTimeout(r, 100));
    const parts = await sendAll(ticket, [3, 1, 2, 4, 5]);
    first.resume();
    expect(await first.outcome).not.toBe("answered 200");
    first.cut();
    expect((await s.store.multipart.listParts(key, uploadId))?.map((p) => p.etag)).toEqual(
      parts.map((p) => p.etag),
    );
    await s.store.multipart.complete(key, uploadId, parts);
    expect((await contentOf(s.store, key, scratch.dir)).equals(FILE)).toBe(true);
    await s.store.delete(key);
  });

  it("aborts: the parts are freed, later parts and the completion refused", async () => {
    const key = "restore/rj_mp6/input";
    const { uploadId, ticket } = await open(s.store, key);
    const parts = await sendAll(ticket, [1, 2]);
    const t3 = await ticket(3);
    await s.store.multipart.abort(key, uploadId);
    await s.store.multipart.abort(key, uploadId);
    expect((await put(t3, partBytes(PLAN, 3))).status).toBe(404);
    await expect(s.store.multipart.listParts(key, uploadId)).rejects.toMatchObject({
      problem: "no_such_upload",
    });
    await expect(s.store.multipart.complete(key, uploadId, parts)).rejects.toMatchObject({
      problem: "no_such_upload",
    });
    expect((await s.files()).filter((f) => f.includes("rj_mp6") || f.includes(uploadId))).toEqual(
      [],
    );
  });

  it("leaves nothing of a part that was arriving when the upload was aborted", async () => {
    const key = "restore/rj_mp7/input";
    const { uploadId, ticket } = await open(s.store, key);
    await sendAll(ticket, [1]);
    const t2 = await ticket(2);
    let answered: Promise<Response>;
    if (s.front) {
      const hold = s.front.holdParts();
      answered = put(t2, partBytes(PLAN, 2));
      await hold.arrived;
      await s.store.multipart.abort(key, uploadId);
      hold.release();
    } else {
      // A body that stalls halfway until the abort is done.
      let resume!: () => void;
      const resumed = new Promise<void>((r) => {
        resume = r;
      });
      const body = partBytes(PLAN, 2);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent === MIB) await resumed;
          const chunk = body.subarray(sent, sent + MIB);
          sent += chunk.length;
          if (chunk.length === 0) controller.close();
          else controller.enqueue(chunk);
        },
      });
      answered = fetch(t2.url, {
        method: "PUT",
        headers: { ...t2.headers, "content-length": String(body.length) },
        body: stream,
        duplex: "half",
      } as RequestInit);
      await new Promise((r) => setTimeout(r, 200));
      await s.store.multipart.abort(key, uploadId);
      resume();
    }
    expect([404, 409]).toContain((await answered).status);
    expect((await s.files()).filter((f) => f.includes("rj_mp7") || f.includes(uploadId))).toEqual(
      [],
    );
  });
});

describe("the local store's uploads in parts, when their folder goes behind its back", () => {
  it("refuses a part once the folder is gone, though the plan is kept in memory, and recreates nothing", async () => {
    const s = await localSetup();
    try {
      const key = "restore/rj_mp8/input";
      const { uploadId, ticket } = await open(s.store, key);
      await sendAll(ticket, [1]);
      const t2 = await ticket(2);
      const data = (await s.files()).find((f) => f.includes(uploadId) && f.endsWith("data"));
      expect(data).toBeDefined();
      // As an operator's clean-up or a crash between the steps of an abort would leave it.
      await rm(dirname(join(s.root ?? "", data ?? "")), { recursive: true });
      const res = await put(t2, partBytes(PLAN, 2));
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: "not_found" });
      expect((await s.files()).filter((f) => f.includes(uploadId))).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe("S3 stores that refuse ListParts and AbortMultipartUpload (s3rver alone)", () => {
  it("say so: listParts answers null and abort throws unsupported", async () => {
    const { dir, cleanup } = await makeTempDir("kinora-mp-bare-");
    const s3rver = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: BUCKET }],
    });
    const { port } = (await s3rver.run()) as AddressInfo;
    try {
      const store = createS3BlobStore({
        bucket: BUCKET,
        region: "us-east-1",
        endpoint: `http://127.0.0.1:${port}`,
        forcePathStyle: true,
        accessKeyId: "S3RVER",
        secretAccessKey: "S3RVER",
      });
      const key = "restore/rj_bare/input";
      const { uploadId, ticket } = await open(store, key);
      const parts = await sendAll(ticket, [5, 3, 1, 4, 2]);
      expect(await store.multipart.listParts(key, uploadId)).toBeNull();
      await store.multipart.complete(key, uploadId, parts);
      expect((await store.head(key))?.sizeBytes).toBe(FILE.length);
      const other = await open(store, "restore/rj_bare2/input");
      await expect(
        store.multipart.abort("restore/rj_bare2/input", other.uploadId),
      ).rejects.toMatchObject({ problem: "unsupported" });
    } finally {
      await s3rver.close();
      await cleanup();
    }
  });
});
