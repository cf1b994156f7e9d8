/**
 * `?wait=N` answers as soon as the job's status changes — or its progress, with `until=progress`
 * — or when the time is up, on both databases.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/app.js";
import { jobBody, makeVideo, upload } from "../../test/restore/helpers.js";
import { restoreFeature } from "../kinds/restore/kind.js";
import type { JobQueue } from "./work.js";

let t: TestApp;
let queue: JobQueue;
let video: { path: string; sizeBytes: number };
beforeAll(async () => {
  t = await createTestApp({ features: [restoreFeature({ noExecutor: true })] });
  queue = t.features.flatMap((f) => f.queues ?? [])[0] as JobQueue;
  video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-watch-")), 1);
});
afterAll(async () => {
  await t.close();
});

async function startedJob() {
  const { key } = await t.newWallet(1000);
  const created = (await t.call("POST", "/cloud/jobs", { key, body: jobBody(video) })).body;
  await upload(t, created, video.path);
  await t.call("POST", `/cloud/jobs/${created.job.id}/start`, { key });
  return created.job.id as string;
}

const timed = async <T>(fn: () => Promise<T>) => {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
};

describe("GET /cloud/jobs/{id}?wait=N", () => {
  it("holds through progress until the status changes; until=progress answers at progress", async () => {
    const id = await startedJob();
    await queue.claim("w1", 60_000);
    setTimeout(() => void queue.heartbeat(id, "w1", 60_000, 0.2), 300);
    const held = await timed(() => t.call("GET", `/cloud/jobs/${id}?wait=2`));
    expect(held.value.body.job).toMatchObject({ status: "processing", progress: 0.2 });
    expect(held.ms).toBeGreaterThanOrEqual(1900);
    setTimeout(() => void queue.heartbeat(id, "w1", 60_000, 0.4), 300);
    const { value, ms } = await timed(() =>
      t.call("GET", `/cloud/jobs/${id}?wait=10&until=progress`),
    );
    expect(value.body.job.progress).toBe(0.4);
    expect(ms).toBeLessThan(5000);
    // A status change wakes it too.
    setTimeout(() => void queue.fail(id, "w1", { kind: "final", message: "broken file" }), 300);
    const ended = await timed(() => t.call("GET", `/cloud/jobs/${id}?wait=10`));
    expect(ended.value.body.job.status).toBe("failed");
    expect(ended.ms).toBeLessThan(5000);
  });

  it("answers after the wait when nothing changes, and at once for a final job", async () => {
    const id = await startedJob();
    const { value, ms } = await timed(() => t.call("GET", `/cloud/jobs/${id}?wait=1`));
    expect(value.body.job.status).toBe("processing");
    expect(ms).toBeGreaterThanOrEqual(900);
    await queue.claim("w2", 60_000);
    await queue.fail(id, "w2", { kind: "final", message: "broken file" });
    const final = await timed(() => t.call("GET", `/cloud/jobs/${id}?wait=20`));
    expect(final.ms).toBeLessThan(1000);
  });

  it("refuses a wait out of range with 400 naming it", async () => {
    const res = await t.call("GET", "/cloud/jobs/rj_x?wait=26");
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^wait:/);
  });
});
