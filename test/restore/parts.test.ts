/**
 * A restore's file in parts over the REST API, on both stores (the local store, in process;
 * S3 as s3rver behind the multipart fake and the SigV4 check, over HTTP) and on the database the
 * run uses: a plan for a large file (a small one keeps upload_url), five 5 MiB parts sent out of
 * order and in parallel then joined by start, every bad input refused with a clear 4xx that
 * changes nothing, a part racing a cancel (refused, refunded once, nothing left behind), and
 * another caller's reach.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partChecksum } from "../../src/storage/part-checksum.js";
import type { TestApp } from "../app.js";
import type { PartsStore } from "../storage/multipart-stores.js";
import { balanceOf } from "./helpers.js";
import { PARTS_STORES, type PartsApp, startPartsApp } from "./parts-app.js";

const MIB = 1024 * 1024;
const FILE = randomBytes(4 * 5 * MIB + 3 * MIB + 11);
const PART = 5 * MIB;
const bytesOf = (n: number) => FILE.subarray((n - 1) * PART, Math.min(n * PART, FILE.length));
/** A part's checksum as the plan asks (crc32 by default: the 4 bytes big-endian, base64). */
const crc = (b: Uint8Array) => partChecksum("crc32", b);

const body = (extra: Record<string, unknown> = {}) => ({
  duration_sec: 600,
  quality: "faithful",
  filename: "tape.dv",
  content_type: "video/dv",
  size: FILE.length,
  ...extra,
});

describe.each(PARTS_STORES)("a restore's file in parts on the %s", (_name, makeS3) => {
  let app: PartsApp | undefined;
  let t: TestApp;
  let s3: PartsStore | undefined;
  beforeAll(async () => {
    app = await startPartsApp(makeS3);
    ({ t, s3 } = app);
  });
  afterAll(async () => {
    await app?.close();
  });

  const path = (id: string, rest = "") => `/cloud/jobs/${id}${rest}`;
  async function created(key: string, extra: Record<string, unknown> = {}) {
    const res = await t.call("POST", "/cloud/jobs", { key, body: body(extra) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }
  async function links(key: string | undefined, id: string, numbers: number[]) {
    const parts = numbers.map((n) => ({ part_number: n, checksum: crc(bytesOf(n)) }));
    const res = await t.call("POST", path(id, "/upload/parts"), { key, body: { parts } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.parts as {
      part_number: number;
      url: string;
      headers: Record<string, string>;
    }[];
  }
  const put = (link: { url: string; headers: Record<string, string> }, data: Uint8Array) =>
    t.fetchUrl(link.url, { method: "PUT", headers: link.headers, body: data as BodyInit });
  async function send(key: string | undefined, id: string, numbers: number[]) {
    const given = await links(key, id, numbers);
    await Promise.all(
      given.map(async (l) => {
        const res = await put(l, bytesOf(l.part_number));
        expect(res.status, await res.clone().text()).toBe(200);
        const reported = await t.call("POST", path(id, "/upload/arrived"), {
          key,
          body: {
            part_number: l.part_number,
            etag: res.headers.get("etag"),
            checksum: crc(bytesOf(l.part_number)),
          },
        });
        expect(reported.status, JSON.stringify(reported.body)).toBe(200);
      }),
    );
  }

  it("plans a large file in parts and keeps upload_url for a small one", async () => {
    const owner = await t.newWallet(10_000);
    const small = await created(owner.key, { size: 5 * MIB });
    expect(small.upload_url).toBeTruthy();
    expect(Object.keys(small.upload_headers)).toEqual(["Content-Type"]);
    expect(small.upload).toBeUndefined();
    const big = await created(owner.key);
    expect(big.upload_url).toBeUndefined();
    expect(big.upload).toMatchObject({
      method: "parts",
      size_bytes: FILE.length,
      part_size_bytes: PART,
      part_count: 5,
      checksum: "crc32",
    });
    expect(big.next).toContain(`POST /cloud/jobs/${big.job.id}/upload/parts`);
    expect(big.next).toContain(`GET /cloud/jobs/${big.job.id}/upload`);
    expect(big.job.upload).toMatchObject({ received_parts: 0, part_count: 5, status: "open" });
  });

  it("takes five parts out of order and in parallel; start joins them, once", async () => {
    const owner = await t.newWallet(10_000);
    const job = (await created(owner.key)).job;
    await send(owner.key, job.id, [5, 3, 1]);
    const mid = await t.call("GET", path(job.id, "/upload"), { key: owner.key });
    expect(mid.body.upload).toMatchObject({ received_parts: 3, missing: [2, 4] });
    // Reported again, briefly (as the SDK reports): recorded once, the counts without the lists.
    const again5 = mid.body.upload.parts.find((p: { part_number: number }) => p.part_number === 5);
    const brief = await t.call("POST", path(job.id, "/upload/arrived"), {
      key: owner.key,
      body: { part_number: 5, etag: again5.etag, checksum: again5.checksum, brief: true },
    });
    expect(brief.status, JSON.stringify(brief.body)).toBe(200);
    expect(brief.body.upload).toMatchObject({ received_parts: 3, part_count: 5 });
    expect(Object.keys(brief.body.upload)).not.toContain("parts");
    expect(Object.keys(brief.body.upload)).not.toContain("missing");
    const read = await t.call("GET", path(job.id));
    expect(read.body.job.upload).toMatchObject({
      received_parts: 3,
      received_bytes: 2 * PART + bytesOf(5).length,
    });
    await send(owner.key, job.id, [4, 2]);
    const started = await t.call("POST", path(job.id, "/start"), { key: owner.key });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.job).toMatchObject({
      status: "processing",
      upload: { status: "completed", received_parts: 5 },
    });
    expect(await t.platform.storage.head(`restore/${job.id}/input`)).toEqual({
      sizeBytes: FILE.length,
      contentType: "video/dv",
    });
    const again = await t.call("POST", path(job.id, "/start"), { key: owner.key });
    expect([again.status, again.body.job.status]).toEqual([200, "processing"]);
    const twice = await t.call("POST", path(job.id, "/upload/complete"), { key: owner.key });
    expect([twice.status, twice.body.code]).toEqual([409, "already_uploaded"]);
    expect(await balanceOf(t, owner.walletId)).toBe(10_000 - job.amount_cents);
  });

  it("refuses every bad input with a clear 4xx and changes nothing", async () => {
    const owner = await t.newWallet(10_000);
    const job = (await created(owner.key)).job;
    const balance = await balanceOf(t, owner.walletId);
    const ask = (parts: unknown) =>
      t.call("POST", path(job.id, "/upload/parts"), { key: owner.key, body: { parts } });
    for (const [parts, field] of [
      [[{ part_number: 6, checksum: crc(bytesOf(1)) }], "parts.0.part_number"],
      [[{ part_number: 0, checksum: crc(bytesOf(1)) }], "parts.0.part_number"],
      [[{ part_number: 1, checksum: "not-a-digest" }], "parts.0.checksum"],
      // A SHA-256 where the plan says CRC32: refused by name, saying which to send.
      [[{ part_number: 1, sha256: partChecksum("sha256", bytesOf(1)) }], "parts.0.sha256"],
      [[{ part_number: 1 }], "parts.0.checksum"],
    ] as const) {
      const res = await ask(parts);
      expect(res.status, JSON.stringify(parts)).toBe(400);
      expect(res.body.detail.startsWith(`${field}: `), res.body.detail).toBe(true);
    }
    // A part larger than the plan, and a part whose bytes are not the ones hashed.
    const [one] = await links(owner.key, job.id, [1]);
    const longer = Buffer.concat([bytesOf(1), Buffer.from("x")]);
    const tooBig = await t.fetchUrl((one as { url: string }).url, {
      method: "PUT",
      headers: { ...one?.headers, "content-length": String(longer.length) },
      body: longer,
    });
    expect([403, 413]).toContain(tooBig.status);
    const damaged = Buffer.from(bytesOf(1));
    damaged[7] = (damaged[7] ?? 0) ^ 0xff;
    expect((await put(one as never, damaged)).status).toBe(400);
    const unheld = await t.call("POST", path(job.id, "/upload/arrived"), {
      key: owner.key,
      body: { part_number: 1, etag: '"0123"', checksum: crc(bytesOf(1)) },
    });
    expect([unheld.status, unheld.body.code]).toEqual([400, "not_uploaded"]);
    const badBrief = await t.call("POST", path(job.id, "/upload/arrived"), {
      key: owner.key,
      body: { part_number: 1, etag: '"0123"', checksum: crc(bytesOf(1)), brief: "yes" },
    });
    expect([badBrief.status, badBrief.body.detail], JSON.stringify(badBrief.body)).toEqual([
      400,
      "brief: must be true or false.",
    ]);
    await send(owner.key, job.id, [1, 3]);
    for (const route of ["/upload/complete", "/start"]) {
      const res = await t.call("POST", path(job.id, route), { key: owner.key });
      expect([res.status, res.body.code], route).toEqual([400, "not_uploaded"]);
      expect(res.body.detail).toMatch(/^Parts 2, 4–5 of 5 have not arrived/);
    }
    const state = await t.call("GET", path(job.id, "/upload"), { key: owner.key });
    expect(state.body.upload).toMatchObject({ status: "open", missing: [2, 4, 5] });
    expect((await t.call("GET", path(job.id))).body.job.status).toBe("awaiting_upload");
    expect(await balanceOf(t, owner.walletId)).toBe(balance);
  });

  it("refuses a part racing a cancel: refunded once, nothing left behind", async () => {
    const owner = await t.newWallet(10_000);
    const job = (await created(owner.key)).job;
    await send(owner.key, job.id, [1]);
    const [link] = await links(owner.key, job.id, [2]);
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const hold = s3?.front?.holdParts();
    let sent = 0;
    const data = bytesOf(2);
    const stalling = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === MIB && !hold) await released;
        const chunk = data.subarray(sent, sent + MIB);
        sent += chunk.length;
        if (chunk.length === 0) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const racing = t.fetchUrl((link as { url: string }).url, {
      method: "PUT",
      headers: { ...link?.headers, "content-length": String(data.length) },
      body: stalling,
      duplex: "half",
    } as RequestInit);
    await (hold ? hold.arrived : new Promise((r) => setTimeout(r, 100)));
    const cancelled = await t.call("POST", path(job.id, "/cancel"), { key: owner.key });
    expect(cancelled.body.job.status).toBe("cancelled");
    release();
    hold?.release();
    expect([404, 409]).toContain((await racing).status);
    expect(await balanceOf(t, owner.walletId)).toBe(10_000);
    const refunds = await t.platform.db
      .selectFrom("ledger_entries")
      .select("kind")
      .where("job_id", "=", job.id)
      .execute();
    expect(refunds.map((r) => r.kind).sort()).toEqual(["charge", "refund"]);
    const state = await t.call("GET", path(job.id, "/upload"), { key: owner.key });
    expect(state.body.upload).toMatchObject({ status: "aborted", received_parts: 0 });
    expect(await t.platform.storage.head(`restore/${job.id}/input`)).toBeNull();
    const files = s3
      ? await s3.files()
      : await import("../storage/temp-files.js").then((m) => m.listAllFiles(t.dataDir));
    expect(files.filter((f) => f.includes(job.id))).toEqual([]);
    if (s3?.front) {
      const aborted = [...s3.front.uploads.values()].filter((u) => u.key.includes(job.id));
      expect(aborted.map((u) => u.state)).toEqual(["aborted"]);
    }
    const late = await t.call("POST", path(job.id, "/upload/parts"), {
      key: owner.key,
      body: { parts: [{ part_number: 3, checksum: crc(bytesOf(3)) }] },
    });
    expect([late.status, late.body.code]).toEqual([409, "wrong_state"]);
  });

  it("is reached only by its key; a job paid by checkout by its id alone", async () => {
    const owner = await t.newWallet(10_000);
    const stranger = await t.newWallet(10_000);
    const job = (await created(owner.key)).job;
    for (const key of [stranger.key, undefined]) {
      for (const [method, route] of [
        ["GET", "/upload"],
        ["POST", "/upload/complete"],
      ] as const) {
        const res = await t.call(method, path(job.id, route), { key });
        expect([res.status, res.body.code], `${route} ${key ? "stranger" : "no key"}`).toEqual([
          404,
          "not_found",
        ]);
      }
    }
    const byCard = await t.call("POST", "/cloud/jobs", {
      body: body({ email: "tape@example.com" }),
    });
    expect(byCard.body.upload).toMatchObject({ part_count: 5 });
    await send(undefined, byCard.body.job.id, [1, 2, 3, 4, 5]);
    const done = await t.call("POST", path(byCard.body.job.id, "/upload/complete"));
    expect([done.status, done.body.job.upload.status]).toEqual([200, "completed"]);
    const owned = await t.call("GET", path(byCard.body.job.id, "/upload"), { key: owner.key });
    expect(owned.status).toBe(404);
  });
});
