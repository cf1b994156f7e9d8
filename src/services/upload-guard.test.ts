/**
 * Upload links are one-shot and die with their job (issue: a second PUT overwrote the file,
 * and a PUT after start, cancel or done was accepted — free storage until the sweep).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/app.js";
import { makeImage } from "../../test/clips/helpers.js";
import { jobBody, makeVideo } from "../../test/restore/helpers.js";
import { clipsFeature } from "../kinds/clips/kind.js";
import { restoreFeature } from "../kinds/restore/kind.js";

let t: TestApp;
let video: { path: string; sizeBytes: number };
let image: Buffer;

beforeAll(async () => {
  t = await createTestApp({
    features: [restoreFeature({ noExecutor: true }), clipsFeature({ noExecutor: true })],
  });
  video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-guard-")), 1);
  image = await makeImage(320, 240);
});
afterAll(async () => {
  await t.close();
});

const put = async (
  created: { upload_url: string; upload_headers: Record<string, string> },
  body: Uint8Array,
) => {
  const res = await t.fetchUrl(created.upload_url, {
    method: "PUT",
    headers: created.upload_headers,
    body: body as unknown as BodyInit,
  });
  return { status: res.status, body: await res.text() };
};

async function restoreJob(key: string) {
  const res = await t.call("POST", "/cloud/jobs", { key, body: jobBody(video) });
  expect(res.status).toBe(200);
  return res.body;
}

describe("restore upload links", () => {
  it("accept one file: a second PUT is refused with 409, even when two race", async () => {
    const { key } = await t.newWallet(10_000);
    const created = await restoreJob(key);
    const file = new Uint8Array(video.sizeBytes).fill(7);
    const racing = await Promise.all([put(created, file), put(created, file), put(created, file)]);
    expect(racing.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const again = await put(created, new Uint8Array(video.sizeBytes).fill(9));
    expect(again.status).toBe(409);
    expect(again.body).toMatch(/already used/);
    expect(JSON.parse(again.body).code).toBe("already_uploaded");
  });

  it("are refused once the job started, was cancelled or is done", async () => {
    const { key } = await t.newWallet(10_000);
    const file = new Uint8Array(video.sizeBytes).fill(1);
    const started = await restoreJob(key);
    expect((await put(started, file)).status).toBe(200);
    expect((await t.call("POST", `/cloud/jobs/${started.job.id}/start`, { key })).status).toBe(200);
    await t.deps.storage.delete(`restore/${started.job.id}/input`);
    const late = await put(started, file);
    expect(late.status).toBe(409);
    expect(late.body).toMatch(/processing/);
    expect(JSON.parse(late.body).code).toBe("wrong_state");

    const cancelled = await restoreJob(key);
    expect((await t.call("POST", `/cloud/jobs/${cancelled.job.id}/cancel`, { key })).status).toBe(
      200,
    );
    const afterCancel = await put(cancelled, file);
    expect(afterCancel.status).toBe(409);
    expect(afterCancel.body).toMatch(/cancelled/);
    expect(await t.deps.storage.head(`restore/${cancelled.job.id}/input`)).toBeNull();
  });
});

describe("clip upload links", () => {
  it("without image_bytes accept up to the 10 MB limit; start checks what arrived", async () => {
    const { key } = await t.newWallet(10_000);
    const res = await t.call("POST", "/motion/jobs", {
      key,
      body: { prompt: "waves rolling in", content_type: "image/jpeg" },
    });
    expect(res.status).toBe(200);
    expect(res.body.job.status).toBe("awaiting_upload");
    const tooBig = await t.fetchUrl(res.body.upload_url, {
      method: "PUT",
      headers: { ...res.body.upload_headers, "content-length": String(10 * 1024 * 1024 + 1) },
      body: new Uint8Array(16),
    });
    expect(tooBig.status).toBe(413);
    expect((await put(res.body, new Uint8Array(image))).status).toBe(200);
    expect((await put(res.body, new Uint8Array(image))).status).toBe(409);
    const started = await t.call("POST", `/motion/jobs/${res.body.job.id}/start`, { key });
    expect(started.status).toBe(200);
    expect(started.body.job.status).toBe("queued");
  });

  it("are refused after the clip was cancelled", async () => {
    const { key } = await t.newWallet(10_000);
    const res = await t.call("POST", "/motion/jobs", {
      key,
      body: { prompt: "waves rolling in", content_type: "image/jpeg", image_bytes: image.length },
    });
    expect((await t.call("POST", `/motion/jobs/${res.body.job.id}/cancel`, { key })).status).toBe(
      200,
    );
    const late = await put(res.body, new Uint8Array(image));
    expect(late.status).toBe(409);
    expect(await t.deps.storage.head(`clips/${res.body.job.id}/image`)).toBeNull();
  });
});
