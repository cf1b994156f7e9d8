/**
 * A worker's result above the server's single-upload size goes in parts, on both stores (the
 * local one in process; S3 as s3rver behind the multipart fake and the SigV4 check) and on the
 * run's database: the stored result is the file byte for byte, the upload is recorded complete;
 * an older worker (no parts_ok) still gets one link; another job's token reaches nothing of
 * this upload; a part that fails for good leaves nothing at the store.
 */
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from "../../test/app.js";
import { type PartsStore, s3PartsStore } from "../../test/storage/multipart-stores.js";
import { OUTPUT_TOKEN_HEADER, signOutputToken } from "../jobs/output-token.js";
import { restoreFeature } from "../kinds/restore/kind.js";
import { restoreOutputKey } from "../kinds/restore/services/definition.js";
import { uploadOutput } from "./transfer.js";

const MIB = 1024 * 1024;
const RESULT = randomBytes(2 * 5 * MIB + 3 * MIB + 7);

describe.each([
  ["local store", null],
  ["S3 (s3rver + the multipart fake)", () => s3PartsStore()],
] as const)("a worker's result in parts on the %s", (_name, makeS3) => {
  let t: TestApp;
  let s3: PartsStore | undefined;
  let file: string;
  beforeAll(async () => {
    s3 = makeS3 ? await makeS3() : undefined;
    t = await createTestApp({
      features: [restoreFeature({ noExecutor: true })],
      env: { UPLOAD_SINGLE_MAX_BYTES: "5MiB", UPLOAD_PART_BYTES: "5MiB" },
      ...(s3 ? { platform: (p) => ({ ...p, storage: (s3 as PartsStore).store }) } : {}),
    });
    file = path.join(tmpdir(), `kinora-result-${process.pid}-${Date.now()}.mp4`);
    await writeFile(file, RESULT);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  /** A restore being processed, and a worker's output item for its result. */
  async function processingJob() {
    const owner = await t.newWallet(5000);
    const made = await t.call("POST", "/cloud/jobs", {
      key: owner.key,
      body: { duration_sec: 60, filename: "a.mp4", content_type: "video/mp4", size: 1000 },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const id = made.body.job.id as string;
    await t.platform.db
      .updateTable("restore_jobs")
      .set({ status: "processing" })
      .where("id", "=", id)
      .execute();
    const token = signOutputToken(t.platform.signer, {
      key: restoreOutputKey(id),
      jobId: id,
      maxBytes: 64 * MIB,
      expSec: Math.floor(t.clock.now().getTime() / 1000) + 3600,
    });
    const item = {
      outputUrl: `${TEST_PUBLIC_URL}/worker/output-ticket`,
      outputHeaders: { [OUTPUT_TOKEN_HEADER]: token },
    };
    return { id, item };
  }

  const stored = async (key: string) => {
    const dest = path.join(tmpdir(), `kinora-stored-${process.pid}-${Date.now()}`);
    await t.platform.storage.downloadToFile(key, dest);
    return readFile(dest);
  };

  it("sends the parts and the server joins them: the stored result is the file", async () => {
    const { id, item } = await processingJob();
    const signal = AbortSignal.timeout(60_000);
    const size = await uploadOutput(t.fetchUrl, item, file, "video/mp4", signal);
    expect(size).toBe(RESULT.length);
    expect((await stored(restoreOutputKey(id))).equals(RESULT)).toBe(true);
    const upload = await t.platform.db
      .selectFrom("multipart_uploads")
      .selectAll()
      .where("object_key", "=", restoreOutputKey(id))
      .executeTakeFirstOrThrow();
    expect(upload).toMatchObject({ status: "completed", part_count: 3 });
  });

  it("sends again a part whose connection broke", async () => {
    const { id, item } = await processingJob();
    let broken = 0;
    const flaky = (url: string, init?: RequestInit) => {
      if (init?.method === "PUT" && broken === 0) {
        broken++;
        return Promise.reject(new TypeError("fetch failed: socket hang up"));
      }
      return t.fetchUrl(url, init);
    };
    const size = await uploadOutput(flaky, item, file, "video/mp4", AbortSignal.timeout(60_000));
    expect(broken).toBe(1);
    expect(size).toBe(RESULT.length);
    expect((await stored(restoreOutputKey(id))).equals(RESULT)).toBe(true);
  });

  it("answers an older worker (no parts_ok) one link, as before", async () => {
    const { item } = await processingJob();
    const res = await t.fetchUrl(item.outputUrl, {
      method: "POST",
      headers: { ...item.outputHeaders, "content-type": "application/json" },
      body: JSON.stringify({ size_bytes: RESULT.length, content_type: "video/mp4" }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(typeof body.url).toBe("string");
    expect(body.upload).toBeUndefined();
  });

  it("reaches an upload only with a token for its key, and refuses a result over the cap", async () => {
    const mine = await processingJob();
    const other = await processingJob();
    const post = (item: typeof mine.item, name: string, body: unknown) =>
      t.fetchUrl(new URL(name, item.outputUrl).toString(), {
        method: "POST",
        headers: { ...item.outputHeaders, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const ticket = await post(mine.item, "output-ticket", {
      size_bytes: RESULT.length,
      content_type: "video/mp4",
      parts_ok: true,
    });
    const { upload } = (await ticket.json()) as { upload: { upload_id: string } };
    const sha256 = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";
    for (const [name, body] of [
      ["output-part", { upload_id: upload.upload_id, part_number: 1, sha256 }],
      ["output-part-sent", { upload_id: upload.upload_id, part_number: 1, etag: '"x"', sha256 }],
      ["output-complete", { upload_id: upload.upload_id }],
      ["output-abort", { upload_id: upload.upload_id }],
    ] as const) {
      const res = await post(other.item, name, body);
      expect(res.status, name).toBe(404);
    }
    const forged = await post(
      { ...mine.item, outputHeaders: { [OUTPUT_TOKEN_HEADER]: "forged" } },
      "output-part",
      { upload_id: upload.upload_id, part_number: 1, sha256 },
    );
    expect(forged.status).toBe(401);
    const bad = await post(mine.item, "output-part", {
      upload_id: upload.upload_id,
      part_number: 4,
      sha256,
    });
    expect(bad.status).toBe(400);
    const missing = await post(mine.item, "output-complete", { upload_id: upload.upload_id });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { detail: string }).detail).toMatch(/have not arrived/);
    const tooBig = await post(mine.item, "output-ticket", {
      size_bytes: 64 * MIB + 1,
      content_type: "video/mp4",
      parts_ok: true,
    });
    expect(tooBig.status).toBe(413);
  });

  it("gives up cleanly: a part refused for good aborts the upload, nothing is left", async () => {
    const { id, item } = await processingJob();
    // The store refuses every part's bytes (as an expired or revoked link would).
    const refusing = (url: string, init?: RequestInit) =>
      init?.method === "PUT"
        ? Promise.resolve(new Response("refused", { status: 403 }))
        : t.fetchUrl(url, init);
    await expect(
      uploadOutput(refusing, item, file, "video/mp4", AbortSignal.timeout(60_000)),
    ).rejects.toThrow(/answered 403/);
    const upload = await t.platform.db
      .selectFrom("multipart_uploads")
      .select("status")
      .where("object_key", "=", restoreOutputKey(id))
      .executeTakeFirstOrThrow();
    expect(upload.status).toBe("aborted");
    expect(await t.platform.storage.head(restoreOutputKey(id))).toBeNull();
  });
});
