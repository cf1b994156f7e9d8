/** Queue position and ETA as callers read them over HTTP, with workers driven on the queues. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../../test/app.js";
import { createUploadStart, makeImage, stubClassifier } from "../../../test/clips/helpers.js";
import { CLIP_DEFAULT_RUN_RATES } from "../../domain/clips/rules.js";
import { RESTORE_DEFAULT_RUN_RATES } from "../../domain/restore/pricing.js";
import { clipsFeature } from "../../features/clips.js";
import { restoreFeature } from "../../features/restore.js";
import { restoreOutputKey } from "../../services/restore/job-definition.js";
import type { JobQueue } from "../work.js";

let t: TestApp;
let queues: Map<string, JobQueue>;
const LEASE = 600_000;
const VIDEO_SEC = 60;

beforeAll(async () => {
  t = await createTestApp({
    features: [
      restoreFeature({ noExecutor: true }),
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
    ],
  });
  queues = new Map(t.features.flatMap((f) => f.queues ?? []).map((q) => [q.kind, q]));
});
afterAll(async () => {
  await t.close();
});

const queue = (kind: string) => queues.get(kind) as JobQueue;

/** A minute-long restore, created, uploaded and started over HTTP, a second after the last. */
async function startedRestore(key: string): Promise<string> {
  t.clock.advance(1000);
  const body = {
    duration_sec: VIDEO_SEC,
    quality: "faithful",
    filename: "reel.mp4",
    content_type: "video/mp4",
    size: 1000,
  };
  const created = await t.call("POST", "/cloud/jobs", { key, body });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const put = await t.fetchUrl(created.body.upload_url, {
    method: "PUT",
    headers: created.body.upload_headers,
    body: new Uint8Array(1000),
  });
  expect(put.status).toBeLessThan(300);
  const id = created.body.job.id as string;
  const started = await t.call("POST", `/cloud/jobs/${id}/start`, { key });
  expect(started.body.job.status).toBe("processing");
  return id;
}

/** What a worker stores before reporting done (the engine checks the result is there). */
async function storeOutput(id: string) {
  const ticket = await t.platform.storage.presignUpload(restoreOutputKey(id), {
    contentType: "video/mp4",
    sizeBytes: 10,
    expiresInSec: 60,
  });
  const put = await t.fetchUrl(ticket.url, {
    method: "PUT",
    headers: ticket.headers,
    body: new Uint8Array(10),
  });
  expect(put.status).toBeLessThan(300);
}

const restore = async (id: string) => (await t.call("GET", `/cloud/jobs/${id}`)).body.job;
const etaOf = async (ids: string[]) =>
  Promise.all(ids.map(async (id) => (await restore(id)).queue));

describe("restore queue estimates", () => {
  it("shows positions in claim order with growing ETAs, measured run rates, and none once ended", async () => {
    const { key } = await t.newWallet(100_000);
    const ids = [await startedRestore(key), await startedRestore(key), await startedRestore(key)];
    const perJob = RESTORE_DEFAULT_RUN_RATES.faithful * VIDEO_SEC;

    // Nothing ran yet: the default rate, one worker assumed.
    const waiting = await etaOf(ids);
    expect(waiting.map((q) => q.position)).toEqual([1, 2, 3]);
    expect(waiting.map((q) => q.ahead)).toEqual([0, 1, 2]);
    expect(waiting.map((q) => q.eta_seconds)).toEqual([perJob, 2 * perJob, 3 * perJob]);
    const now = t.clock.now().getTime();
    expect(Date.parse(waiting[2].estimated_done_at)).toBe(now + 3 * perJob * 1000);

    // The list carries the same estimates (newest first).
    const list = await t.call("GET", "/cloud/jobs", { key });
    expect(list.body.jobs.map((j: { queue: unknown }) => j.queue)).toEqual([...waiting].reverse());

    // The first claim takes position 1; half way after 10 s, it has 10 s to go.
    const [a, b, c] = ids as [string, string, string];
    expect((await queue("restore").claim("w1", LEASE))?.jobId).toBe(a);
    t.clock.advance(10_000);
    expect(await queue("restore").heartbeat(a, "w1", LEASE, 0.5)).toBe("ok");
    expect(await restore(a)).toMatchObject({ queue: { position: 0, ahead: 0, eta_seconds: 10 } });
    expect((await restore(b)).queue).toMatchObject({ position: 1, eta_seconds: 10 + perJob });

    // It finished in 20 s: a minute of video takes 20 s here, not the default.
    t.clock.advance(10_000);
    await storeOutput(a);
    expect(await queue("restore").complete(a, "w1", { outputBytes: 1, meta: {} })).toBe("ok");
    expect(await restore(a)).toMatchObject({ status: "done", queue: null });
    expect((await etaOf([b, c])).map((q) => q.eta_seconds)).toEqual([20, 40]);

    // A failed job has no estimate; two workers seen now share the rest.
    expect((await queue("restore").claim("w2", LEASE))?.jobId).toBe(b);
    await queue("restore").fail(b, "w2", { kind: "final", message: "Not a video." });
    expect(await restore(b)).toMatchObject({ status: "failed", queue: null });
    expect((await restore(c)).queue).toMatchObject({ position: 1, ahead: 0, eta_seconds: 20 });
  });
});

describe("clip queue estimates", () => {
  it("numbers queued clips from 1 in claim order, and drops the estimate when a clip ends", async () => {
    const { key } = await t.newWallet(10_000);
    const image = await makeImage(64, 64);
    const perClip = CLIP_DEFAULT_RUN_RATES["480p"] * 5;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      const { started } = await createUploadStart(t, key, image);
      expect(started.body.job).toMatchObject({ status: "queued", queue: { position: i + 1 } });
      ids.push(started.body.job.id);
    }
    const clip = async (id: string) =>
      (await t.call("GET", `/motion/jobs/${id}`, { key })).body.job;
    const etas = await Promise.all(ids.map(async (id) => (await clip(id)).queue.eta_seconds));
    expect(etas).toEqual([1, 2, 3].map((n) => Math.ceil(n * perClip)));
    const list = await t.call("GET", "/motion/jobs", { key });
    const positions = list.body.clips.map((c: { queue: { position: number } }) => c.queue.position);
    expect(positions).toEqual([3, 2, 1]);

    const [first, second] = ids as [string, string];
    expect((await queue("clip").claim("w1", LEASE))?.jobId).toBe(first);
    expect((await clip(first)).queue).toMatchObject({ position: 0 });
    expect((await clip(second)).queue).toMatchObject({ position: 1 });
    await queue("clip").fail(first, "w1", { kind: "final", message: "Engine error." });
    expect(await clip(first)).toMatchObject({ status: "failed", queue: null });
    expect((await clip(second)).queue).toMatchObject({ position: 1, ahead: 0 });
  });
});
