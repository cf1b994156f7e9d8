/** Queue position and ETA as callers read them over HTTP, with workers driven on the queues. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../../test/app.js";
import { createUploadStart, makeImage, stubClassifier } from "../../../test/clips/helpers.js";
import { clipsFeature } from "../../kinds/clips/kind.js";
import { CLIP_DEFAULT_RUN_RATES } from "../../kinds/clips/rules/rules.js";
import { restoreFeature } from "../../kinds/restore/kind.js";
import { RESTORE_DEFAULT_RUN_RATES } from "../../kinds/restore/rules/pricing.js";
import { restoreOutputKey } from "../../kinds/restore/services/definition.js";
import { restoreSegmentsFeature } from "../../kinds/restore-segments/kind.js";
import { segmentJobs } from "../../kinds/restore-segments/services/definition.js";
import type { JobQueue } from "../work.js";
import { createDbWorkSource } from "../work-source.js";

let t: TestApp;
let queues: Map<string, JobQueue>;
const LEASE = 600_000;
const VIDEO_SEC = 60;
const perRestore = RESTORE_DEFAULT_RUN_RATES.faithful * VIDEO_SEC;
const perClip = Math.ceil(CLIP_DEFAULT_RUN_RATES["480p"] * 5);

beforeAll(async () => {
  t = await createTestApp({
    features: [
      restoreFeature({ noExecutor: true }),
      restoreSegmentsFeature({ noExecutor: true }),
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
    ],
  });
  queues = new Map(t.features.flatMap((f) => f.queues ?? []).map((q) => [q.kind, q]));
});
afterAll(async () => {
  await t.close();
});

/** Every test starts with an empty line and no worker seen: the previous test's jobs ended. */
beforeEach(async () => {
  await t.deps.db.deleteFrom("restore_jobs").where("status", "=", "processing").execute();
  await t.deps.db.deleteFrom("clips").where("status", "in", ["queued", "processing"]).execute();
  // Past the window of measured runs too: each test starts from the default speeds.
  t.clock.advance(25 * 3600_000);
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

/** A 480p clip queued over HTTP, a second after the last. */
async function queuedClip(key: string, image: Buffer): Promise<string> {
  t.clock.advance(1000);
  const { started } = await createUploadStart(t, key, image);
  expect(started.body.job.status).toBe("queued");
  return started.body.job.id;
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
const clipOf = async (key: string, id: string) =>
  (await t.call("GET", `/motion/jobs/${id}`, { key })).body.job;
const etaOf = async (ids: string[]) =>
  Promise.all(ids.map(async (id) => (await restore(id)).queue));

describe("restore queue estimates", () => {
  it("shows positions in claim order with growing ETAs, measured run rates, and none once ended", async () => {
    const { key } = await t.newWallet(100_000);
    const ids = [await startedRestore(key), await startedRestore(key), await startedRestore(key)];

    // Nothing ran yet: the default rate, one worker assumed. A waiting restore says queued
    // (its status stays processing, as the spec has it).
    const waiting = await etaOf(ids);
    expect(waiting.map((q) => q.state)).toEqual(["queued", "queued", "queued"]);
    expect(waiting.map((q) => q.position)).toEqual([1, 2, 3]);
    expect(waiting.map((q) => q.ahead)).toEqual([0, 1, 2]);
    expect(waiting.map((q) => q.eta_seconds)).toEqual([perRestore, 2 * perRestore, 3 * perRestore]);
    const now = t.clock.now().getTime();
    expect(Date.parse(waiting[2].estimated_done_at)).toBe(now + 3 * perRestore * 1000);

    // The list carries the same estimates (newest first).
    const list = await t.call("GET", "/cloud/jobs", { key });
    expect(list.body.jobs.map((j: { queue: unknown }) => j.queue)).toEqual([...waiting].reverse());

    // The first claim takes position 1; half way after 10 s, it has 10 s to go.
    const [a, b, c] = ids as [string, string, string];
    expect((await queue("restore").claim("w1", LEASE))?.jobId).toBe(a);
    t.clock.advance(10_000);
    expect(await queue("restore").heartbeat(a, "w1", LEASE, 0.5)).toBe("ok");
    expect(await restore(a)).toMatchObject({
      queue: { state: "running", position: 0, ahead: 0, eta_seconds: 10 },
    });
    expect((await restore(b)).queue).toMatchObject({
      state: "queued",
      position: 1,
      eta_seconds: 10 + perRestore,
    });

    // It finished in 20 s: a minute of video takes 20 s here, not the default.
    t.clock.advance(10_000);
    await storeOutput(a);
    expect(await queue("restore").complete(a, "w1", { outputBytes: 1, meta: {} })).toBe("ok");
    expect(await restore(a)).toMatchObject({ status: "done", queue: null });
    expect((await etaOf([b, c])).map((q) => q.eta_seconds)).toEqual([20, 40]);

    // A failed job has no estimate.
    expect((await queue("restore").claim("w1", LEASE))?.jobId).toBe(b);
    await queue("restore").fail(b, "w1", { kind: "final", message: "Not a video." });
    expect(await restore(b)).toMatchObject({ status: "failed", queue: null });
    expect((await restore(c)).queue).toMatchObject({ position: 1, ahead: 0, eta_seconds: 20 });
  });
});

describe("clip queue estimates", () => {
  it("numbers queued clips from 1 in claim order, and drops the estimate when a clip ends", async () => {
    const { key } = await t.newWallet(10_000);
    const image = await makeImage(64, 64);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = await queuedClip(key, image);
      expect((await clipOf(key, id)).queue).toMatchObject({ state: "queued", position: i + 1 });
      ids.push(id);
    }
    const etas = await Promise.all(
      ids.map(async (id) => (await clipOf(key, id)).queue.eta_seconds),
    );
    expect(etas).toEqual([1, 2, 3].map((n) => n * perClip));
    const list = await t.call("GET", "/motion/jobs", { key });
    const positions = list.body.clips.map((c: { queue: { position: number } }) => c.queue.position);
    expect(positions).toEqual([3, 2, 1]);

    const [first, second] = ids as [string, string];
    expect((await queue("clip").claim("w1", LEASE))?.jobId).toBe(first);
    expect((await clipOf(key, first)).queue).toMatchObject({ state: "running", position: 0 });
    expect((await clipOf(key, second)).queue).toMatchObject({ position: 1 });
    await queue("clip").fail(first, "w1", { kind: "final", message: "Engine error." });
    expect(await clipOf(key, first)).toMatchObject({ status: "failed", queue: null });
    expect((await clipOf(key, second)).queue).toMatchObject({ position: 1, ahead: 0 });
  });
});

describe("one line for every kind (issue 34: a clip said 'any moment now' behind a busy worker)", () => {
  it("counts a restore running on the one worker, and the other kind's jobs ahead", async () => {
    const { key } = await t.newWallet(100_000);
    const image = await makeImage(64, 64);
    const running = await startedRestore(key);
    expect((await queue("restore").claim("w1", LEASE))?.jobId).toBe(running);
    // Two minutes in, a quarter done: the restore has six minutes to go by its own pace.
    t.clock.advance(120_000);
    expect(await queue("restore").heartbeat(running, "w1", LEASE, 0.25)).toBe("ok");
    const restoreLeft = (await restore(running)).queue.eta_seconds;
    expect(restoreLeft).toBeGreaterThan(120);

    // A clip queued now waits for the restore, then runs: not its own 10 s.
    const clip = await queuedClip(key, image);
    const clipQueue = (await clipOf(key, clip)).queue;
    expect(clipQueue).toMatchObject({ state: "queued", position: 1, ahead: 0 });
    // (Each figure is rounded up to a whole second on its own.)
    const restoreNow = (await restore(running)).queue.eta_seconds;
    expect(Math.abs(clipQueue.eta_seconds - (restoreNow + perClip))).toBeLessThanOrEqual(1);

    // A restore queued after the clip has the clip ahead of it.
    const later = await startedRestore(key);
    const laterQueue = (await restore(later)).queue;
    expect(laterQueue).toMatchObject({ state: "queued", position: 2, ahead: 1 });
    const behind = (await restore(running)).queue.eta_seconds + perClip + perRestore;
    expect(Math.abs(laterQueue.eta_seconds - behind)).toBeLessThanOrEqual(1);

    // The estimate is the same whichever surface or listing asks, at the same moment.
    const [one, listed] = await Promise.all([
      clipOf(key, clip),
      t.call("GET", "/motion/jobs", { key }),
    ]);
    expect(listed.body.clips.find((c: { id: string }) => c.id === clip).queue).toEqual(one.queue);
  });

  it("claims the oldest job of any kind first, so the line the estimate counts is the real one", async () => {
    const { key } = await t.newWallet(100_000);
    const image = await makeImage(64, 64);
    const clip = await queuedClip(key, image);
    const later = await startedRestore(key);
    const source = await createDbWorkSource(t.database, [...queues.values()], { leaseMs: LEASE });
    try {
      // Restores are listed first, but the clip was queued first.
      const first = await source.claim(["restore", "clip"], "w1", 0);
      expect(first).toMatchObject({ kind: "clip", jobId: clip });
      const second = await source.claim(["restore", "clip"], "w2", 0);
      expect(second).toMatchObject({ kind: "restore", jobId: later });
      expect(await source.claim(["restore", "clip"], "w3", 0)).toBeNull();
    } finally {
      await source.close();
    }
  });
});

describe("live workers", () => {
  it("shares the line over the workers holding leases, and forgets one whose lease lapsed", async () => {
    const { key } = await t.newWallet(100_000);
    const [a, b, waiting] = [
      await startedRestore(key),
      await startedRestore(key),
      await startedRestore(key),
    ];
    expect((await queue("restore").claim("w1", LEASE))?.jobId).toBe(a);
    expect((await queue("restore").claim("w2", 15_000))?.jobId).toBe(b);
    // Two busy workers, each a full run to go: the next starts when the first is free.
    expect((await restore(waiting)).queue).toMatchObject({
      position: 1,
      eta_seconds: 2 * perRestore,
    });

    // w2 stops heartbeating: its lease lapses. Its job goes back to the head of the line and
    // w2 no longer counts; w1 takes both, one after the other.
    t.clock.advance(20_000);
    expect((await restore(waiting)).queue).toMatchObject({ position: 2, ahead: 1 });
    expect((await restore(waiting)).queue.eta_seconds).toBe(perRestore - 20 + 2 * perRestore);
  });

  it("does not count a worker that finished a job long ago (a restarted server's old ids)", async () => {
    const { key } = await t.newWallet(100_000);
    const old = await startedRestore(key);
    expect((await queue("restore").claim("old-node-w0", LEASE))?.jobId).toBe(old);
    t.clock.advance(20_000);
    await storeOutput(old);
    expect(await queue("restore").complete(old, "old-node-w0", { outputBytes: 1, meta: {} })).toBe(
      "ok",
    );
    const [busy, waiting] = [await startedRestore(key), await startedRestore(key)];
    expect((await queue("restore").claim("new-node-w0", LEASE))?.jobId).toBe(busy);
    // Just after: the old worker may be between jobs, so two are counted — the next starts now.
    expect((await restore(waiting)).queue.eta_seconds).toBe(20);
    // Ten minutes later it never took another job: one worker, busy with the running restore.
    t.clock.advance(600_000);
    const q = (await restore(waiting)).queue;
    expect(q.eta_seconds).toBeGreaterThan(20);
  });
});

describe("a restore handed to its segments (issue 37)", () => {
  it("holds no worker: the next restore waits behind its segments only", async () => {
    const { key } = await t.newWallet(100_000);
    const long = await startedRestore(key);
    expect((await queue("restore").claim("w1", LEASE))?.jobId).toBe(long);
    t.clock.advance(5_000);
    // The analysis hands it to two 30 s segments, which wait for a worker.
    const segment = (index: number) => ({
      index,
      startSec: index * 30,
      endSec: (index + 1) * 30,
      frames: 750,
      onKeyframe: true,
      last: index === 1,
    });
    const cut = { frameSec: 0.04, startSec: 0, endSec: 60, segments: [segment(0), segment(1)] };
    const handed = await queue("restore").complete(long, "w1", {
      outputBytes: 0,
      meta: { segmented: { plan: { audio: null }, cut } },
    });
    expect(handed).toBe("ok");
    const next = await startedRestore(key);
    // No worker holds a lease (the analysis is not a finished run): one assumed, and free; the
    // two segments are ahead in the line.
    const perSegment = (segmentJobs.estimate.defaults.faithful ?? Number.NaN) * 30;
    expect((await restore(next)).queue).toMatchObject({
      state: "queued",
      position: 3,
      ahead: 2,
      eta_seconds: 2 * perSegment + perRestore,
    });
    await t.deps.db.deleteFrom("restore_segments").where("parent_id", "=", long).execute();
  });
});
