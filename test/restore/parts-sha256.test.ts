/**
 * An operator who keeps SHA-256 for parts (UPLOAD_PART_CHECKSUM=sha256), on both stores: the plan
 * and the upload's state say sha256, a caller of before CRC32 (`sha256` fields) and one of now
 * (`checksum`) both send their parts, the store checks the SHA-256 header, and start joins them.
 * A CRC32 where the plan says sha256 is refused by name.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partChecksum } from "../../src/storage/part-checksum.js";
import type { TestApp } from "../app.js";
import { PARTS_STORES, type PartsApp, startPartsApp } from "./parts-app.js";

const MIB = 1024 * 1024;
const PART = 5 * MIB;
const FILE = randomBytes(2 * PART + 7);
const bytesOf = (n: number) => FILE.subarray((n - 1) * PART, Math.min(n * PART, FILE.length));
const sha = (n: number) => partChecksum("sha256", bytesOf(n));

describe.each(PARTS_STORES)("parts carrying SHA-256 on the %s", (_name, makeS3) => {
  let app: PartsApp | undefined;
  let t: TestApp;
  beforeAll(async () => {
    app = await startPartsApp(makeS3, { UPLOAD_PART_CHECKSUM: "sha256" });
    t = app.t;
  });
  afterAll(async () => {
    await app?.close();
  });

  it("plans sha256, takes `sha256` and `checksum` alike, refuses a CRC32, and joins", async () => {
    const owner = await t.newWallet(10_000);
    const made = await t.call("POST", "/cloud/jobs", {
      key: owner.key,
      body: {
        duration_sec: 600,
        quality: "faithful",
        filename: "tape.dv",
        content_type: "video/dv",
        size: FILE.length,
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.upload).toMatchObject({ checksum: "sha256", part_count: 3 });
    const id = made.body.job.id as string;
    const at = (rest: string) => `/cloud/jobs/${id}${rest}`;

    const crc = await t.call("POST", at("/upload/parts"), {
      key: owner.key,
      body: { parts: [{ part_number: 1, checksum: partChecksum("crc32", bytesOf(1)) }] },
    });
    expect(crc.status).toBe(400);
    expect(crc.body.detail).toMatch(/^parts\.0\.checksum: must be the base64 SHA-256/);

    // Parts 1 and 3 as an older caller names the checksum, part 2 as a caller of now.
    const asked = await t.call("POST", at("/upload/parts"), {
      key: owner.key,
      body: {
        parts: [
          { part_number: 1, sha256: sha(1) },
          { part_number: 2, checksum: sha(2) },
          { part_number: 3, sha256: sha(3) },
        ],
      },
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    for (const link of asked.body.parts as {
      part_number: number;
      url: string;
      headers: Record<string, string>;
    }[]) {
      expect(link.headers["x-amz-checksum-sha256"]).toBe(sha(link.part_number));
      const res = await t.fetchUrl(link.url, {
        method: "PUT",
        headers: link.headers,
        body: bytesOf(link.part_number) as BodyInit,
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const field = link.part_number === 2 ? "checksum" : "sha256";
      const reported = await t.call("POST", at("/upload/arrived"), {
        key: owner.key,
        body: {
          part_number: link.part_number,
          etag: res.headers.get("etag"),
          [field]: sha(link.part_number),
        },
      });
      expect(reported.status, JSON.stringify(reported.body)).toBe(200);
    }
    const state = await t.call("GET", at("/upload"), { key: owner.key });
    expect(state.body.upload).toMatchObject({ checksum: "sha256", missing: [] });
    expect(state.body.upload.parts[1]).toMatchObject({ checksum: sha(2), sha256: sha(2) });

    const started = await t.call("POST", at("/start"), { key: owner.key });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.job.upload).toMatchObject({ status: "completed", received_parts: 3 });
  });
});
