/**
 * A restore's file in parts through MCP, as an assistant sends one (the official client over real
 * HTTP, the local store on the same server; parts above 5 MiB): create_restore answers the plan
 * in tool terms — how to get links (get_restore with parts), where to PUT, how to resume, and
 * that a video_url avoids all of it; get_restore hands out links and says which parts arrived;
 * bad input is refused naming the field or the missing parts; start_restore joins the parts.
 * A small file keeps upload_url, and its reads carry nothing of parts.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partChecksum } from "../../src/storage/part-checksum.js";
import { call, connect, type Json, type McpClient, refusal } from "../mcp/helpers.js";
import { apiOnlyFeatures, type ServedApp, serveTestApp } from "../served.js";

const MIB = 1024 * 1024;
const FILE = randomBytes(4 * 5 * MIB + 2 * MIB + 5);
const bytesOf = (n: number) => FILE.subarray((n - 1) * 5 * MIB, Math.min(n * 5 * MIB, FILE.length));
/** A part's checksum as the plan asks (crc32 by default: the 4 bytes big-endian, base64). */
const crc = (b: Uint8Array) => partChecksum("crc32", b);
const partsOf = (numbers: number[]) =>
  numbers.map((n) => ({ part_number: n, checksum: crc(bytesOf(n)) }));

let s: ServedApp;
let client: McpClient;
let walletKey: string;
beforeAll(async () => {
  s = await serveTestApp({
    features: apiOnlyFeatures(),
    env: { UPLOAD_SINGLE_MAX_BYTES: "5MiB", UPLOAD_PART_BYTES: "5MiB" },
  });
  const owner = await s.t.newWallet(10_000);
  walletKey = owner.key;
  const made = await s.t.call("POST", "/wallet/keys", {
    key: owner.key,
    body: { limit_cents: 5000, ask_before_spending: false },
  });
  client = await connect(s.url, made.body.key as string);
});
afterAll(async () => {
  await client?.close();
  await s?.close();
});

const create = (size: number) =>
  call(client, "create_restore", {
    duration_sec: 600,
    quality: "faithful",
    filename: "tape.dv",
    content_type: "video/dv",
    size,
  });

/** PUTs parts to their links at once; every one must be taken. */
async function put(links: Json[]) {
  await Promise.all(
    links.map(async (l: Json) => {
      const res = await fetch(l.url, {
        method: "PUT",
        headers: l.headers,
        body: bytesOf(l.part_number),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    }),
  );
}

describe("a restore's file in parts through MCP", () => {
  it("gets the plan in tool terms, links from get_restore, resumes from what arrived, starts", async () => {
    const created = await create(FILE.length);
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const c = created.structuredContent;
    expect(c.upload_url).toBeUndefined();
    expect(c.upload).toMatchObject({
      method: "parts",
      size_bytes: FILE.length,
      part_size_bytes: 5 * MIB,
      part_count: 5,
      checksum: "crc32",
    });
    const id = c.job.id as string;
    // The plan in the assistant's calls: links from get_restore with parts, PUT, resume, start.
    expect(c.next).toContain(`in 5 parts of ${5 * MIB} bytes`);
    expect(c.next).toMatch(
      /get its link with the get_restore tool \(parts: \[\{part_number, checksum\}\]/,
    );
    expect(c.next).toMatch(/PUT exactly its bytes to the link's url with the link's headers/);
    expect(c.next).toMatch(/lists the parts that arrived: send only the missing ones/);
    expect(c.next).toContain("video_url (up to 2 GB) avoids uploading at all");
    expect(c.next).toMatch(/When every part is there, then call the start_restore tool/);
    expect(c.next).not.toMatch(/\/cloud\/jobs/);
    const fresh = (await call(client, "get_restore", { job_id: id })).structuredContent;
    expect(fresh.upload).toMatchObject({ received_parts: 0, missing_parts: "1–5" });

    // Bad input: a part outside the plan, a malformed checksum; start with parts missing.
    for (const [parts, field] of [
      [[{ part_number: 6, checksum: crc(bytesOf(1)) }], "parts.0.part_number"],
      [[{ part_number: 1, checksum: "nope" }], "parts.0.checksum"],
      [[{ part_number: 1, sha256: "nope" }], "parts.0.sha256"],
      [["part one"], "parts.0"],
    ] as const) {
      const res = await call(client, "get_restore", { job_id: id, parts });
      expect(res.isError, JSON.stringify(parts)).toBe(true);
      expect(refusal(res).detail).toMatch(new RegExp(`^${field.replaceAll(".", "\\.")}: `));
    }

    const first = await call(client, "get_restore", { job_id: id, parts: partsOf([4, 2]) });
    expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
    expect(first.structuredContent.links.map((l: Json) => l.part_number)).toEqual([4, 2]);
    await put(first.structuredContent.links);

    // A new conversation resumes: get_restore alone says what arrived and what is missing.
    const state = (await call(client, "get_restore", { job_id: id })).structuredContent;
    expect(state.job.status).toBe("awaiting_upload");
    expect(state.upload).toMatchObject({ received_parts: 2, missing_parts: "1, 3, 5" });
    // Each part's record is the uploaders' (GET …/upload), not the assistant's context, and
    // the missing numbers come as ranges.
    expect(state.upload.parts).toBeUndefined();
    expect(state.upload.missing).toBeUndefined();
    expect(state.links).toBeUndefined();
    const early = await call(client, "start_restore", { job_id: id });
    expect(early.isError).toBe(true);
    expect(refusal(early)).toMatchObject({ code: "not_uploaded" });
    expect(refusal(early).detail).toMatch(/^Parts 1, 3, 5 of 5 have not arrived/);

    const rest = await call(client, "get_restore", { job_id: id, parts: partsOf([5, 1, 3]) });
    await put(rest.structuredContent.links);
    const started = await call(client, "start_restore", { job_id: id });
    expect(started.isError, JSON.stringify(started.content)).toBeFalsy();
    expect(started.structuredContent.job).toMatchObject({
      status: "processing",
      upload: { status: "completed", received_parts: 5 },
    });
    expect(await s.t.platform.storage.head(`restore/${id}/input`)).toMatchObject({
      sizeBytes: FILE.length,
    });
    // Only the key's own jobs: the wallet's owner reaches it, a stranger does not.
    const stranger = await s.t.newWallet(1000);
    const theirs = await s.t.call("GET", `/cloud/jobs/${id}/upload`, { key: stranger.key });
    expect(theirs.status).toBe(404);
    const mine = await s.t.call("GET", `/cloud/jobs/${id}/upload`, { key: walletKey });
    expect(mine.status).toBe(200);
  });

  it("keeps upload_url for a small file, and its reads carry nothing of parts", async () => {
    const created = await create(5 * MIB);
    const c = created.structuredContent;
    expect(c.upload_url).toBeTruthy();
    expect(c.upload).toBeUndefined();
    expect(c.next).not.toMatch(/parts/);
    const read = await call(client, "get_restore", { job_id: c.job.id });
    expect(read.structuredContent.upload).toBeUndefined();
    expect(read.structuredContent.job.upload ?? null).toBeNull();
    const asked = await call(client, "get_restore", {
      job_id: c.job.id,
      parts: partsOf([1]),
    });
    expect(asked.isError).toBe(true);
    expect(refusal(asked).detail).toMatch(/upload_url|one PUT|not in parts/);
  });
});
