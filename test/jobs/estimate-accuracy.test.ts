/**
 * Issue 34 item 3 with a real worker: one in-process worker running the real ffmpeg restore
 * engine and the real CPU clip engine, on the real clock. Once it has run a job of each kind
 * (its measured speed, after a first run of each that loads the engines), it is kept busy with a restore while a clip and then a restore wait
 * behind it — the situation where a clip said "next in the queue | any moment now" for 14
 * minutes. Each waiting job's estimate, read as it was queued, must be within a factor of 2 of
 * how long it then really took; while it waits and runs, the done time it is given must stay
 * near the first (no jumping between very different figures); and the clip is done after the
 * restore ahead of it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDbWorkSource } from "../../src/jobs/work-source.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { silentLogger } from "../../src/logger.js";
import { startWorkerLoop } from "../../src/workers/loop.js";
import { createTestApp, type TestApp } from "../app.js";
import { createUploadStart, makeImage, stubClassifier } from "../clips/helpers.js";
import { jobBody, makeVideo, upload } from "../restore/helpers.js";

const dir = mkdtempSync(path.join(tmpdir(), "kinora-estimate-"));
let t: TestApp;
let stop: () => Promise<void>;
let video: { path: string; sizeBytes: number };
let image: Buffer;
let key: string;
let shiftMs = 0;
/** The server's clock. */
const serverNow = () => Date.now() + shiftMs;

beforeAll(async () => {
  [video, image] = await Promise.all([makeVideo(dir, 4, "reel.mp4"), makeImage(320, 240)]);
  const via = (url: string, init?: RequestInit) => t.fetchUrl(url, init);
  t = await createTestApp({
    features: [
      restoreFeature({ fetch: via }),
      clipsFeature({ classifier: stubClassifier().classifier, fetch: via as typeof fetch }),
    ],
    // Real work takes real time: the server's clock is the wall clock here (moved on a day once,
    // below, so the engines' first runs leave the window of measured runs).
    platform: (p) => ({ ...p, clock: () => new Date(Date.now() + shiftMs) }),
  });
  key = (await t.newWallet(100_000)).key;
  const source = await createDbWorkSource(
    t.database,
    t.features.flatMap((f) => f.queues ?? []),
    { leaseMs: 60_000, pollMs: 100 },
  );
  // One worker for every kind, reporting progress every quarter second.
  const loop = startWorkerLoop({
    workerId: "only-worker",
    source,
    executors: t.features.flatMap((f) => f.executors ?? []),
    log: silentLogger,
    claimWaitMs: 200,
    heartbeatMs: 250,
  });
  stop = async () => {
    await loop.stop(10_000);
    await source.close();
  };
}, 120_000);

afterAll(async () => {
  await stop?.();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Kind = "restore" | "clip";
const read = async (kind: Kind, id: string) =>
  kind === "restore"
    ? (await t.call("GET", `/cloud/jobs/${id}`)).body.job
    : (await t.call("GET", `/motion/jobs/${id}`, { key })).body.job;

async function startRestore(): Promise<string> {
  const body = jobBody(video, { duration_sec: 4, quality: "faithful" });
  const created = await t.call("POST", "/cloud/jobs", { key, body });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect(await upload(t, created.body, video.path)).toBeLessThan(300);
  const id = created.body.job.id as string;
  expect((await t.call("POST", `/cloud/jobs/${id}/start`, { key })).status).toBe(200);
  return id;
}

async function startClip(): Promise<string> {
  const { started } = await createUploadStart(t, key, image);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return started.body.job.id as string;
}

/**
 * Reads the job every `everyMs` until it ends; every estimate seen on the way, with when it was
 * read. (The reads run in the worker's own process: they are kept few, so they do not slow
 * the jobs they time.)
 */
async function follow(kind: Kind, id: string, everyMs: number, timeoutMs = 120_000) {
  const seen: { at: number; doneAt: number; state: string }[] = [];
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = await read(kind, id);
    if (job.queue) {
      seen.push({
        at: serverNow(),
        doneAt: Date.parse(job.queue.estimated_done_at),
        state: job.queue.state,
      });
    }
    if (["done", "failed", "refused", "refunded"].includes(job.status)) return { job, seen };
    if (Date.now() > until) throw new Error(`${kind} ${id} still ${job.status}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

describe("estimates with one busy worker, real engines, real clock", () => {
  // One retry: the test file running beside this one can take most of both cores for the
  // seconds between the measured runs and the jobs they time (a CI run saw both estimates at
  // 2.1x their jobs' times). A retry moves the clock on a day again, so the worker is measured
  // afresh; an estimator that is wrong fails both tries.
  const tries = { timeout: 240_000, retry: 1 };
  it(
    "gives the next jobs an ETA within a factor of 2 of what they took, without jumps",
    tries,
    async () => {
      // A process's first job of each kind also loads its engine. Those runs are put out of the
      // window of measured runs (the server's clock moved on a day), then the worker's own speed
      // is measured on one more job of each kind.
      const once = async () => {
        for (const kind of ["restore", "clip"] as const) {
          const id = kind === "restore" ? await startRestore() : await startClip();
          expect((await follow(kind, id, 500)).job.status).toBe("done");
        }
      };
      await once();
      shiftMs += 25 * 3600_000;
      // Two measured runs of each kind: on two shared cores (the suite runs another file beside
      // this one) a single run's speed can be half or double the next one's.
      await once();
      await once();

      // A restore takes the worker; once it runs, a clip and another restore are queued.
      const busy = await startRestore();
      for (let i = 0; (await read("restore", busy)).queue?.state !== "running"; i++) {
        expect(i).toBeLessThan(300);
        await new Promise((r) => setTimeout(r, 50));
      }
      const clip = await startClip();
      const queuedAt = serverNow();
      const clipFirst = (await read("clip", clip)).queue;
      const later = await startRestore();
      const laterAt = serverNow();
      const laterFirst = (await read("restore", later)).queue;
      expect(clipFirst).toMatchObject({ state: "queued", position: 1 });
      expect(laterFirst).toMatchObject({ state: "queued", position: 2, ahead: 1 });

      const [busyEnd, clipEnd, laterEnd] = await Promise.all([
        follow("restore", busy, 1000),
        follow("clip", clip, 300),
        follow("restore", later, 1000),
      ]);
      for (const end of [busyEnd, clipEnd, laterEnd]) expect(end.job.status).toBe("done");
      const took = {
        clip: (Date.parse(clipEnd.job.finished_at) - queuedAt) / 1000,
        later: (Date.parse(laterEnd.job.finished_at) - laterAt) / 1000,
      };
      const said = { clip: clipFirst.eta_seconds, later: laterFirst.eta_seconds };
      const report = JSON.stringify({ said, took });
      // The clip waited for the restore ahead of it: it was never "due any moment".
      expect(clipEnd.job.finished_at > busyEnd.job.finished_at, report).toBe(true);
      for (const which of ["clip", "later"] as const) {
        const ratio = said[which] / Math.max(took[which], 0.001);
        expect(ratio, report).toBeGreaterThan(0.5);
        expect(ratio, report).toBeLessThan(2);
      }
      // Stable: while the clip waits and runs, the done time it is given moves with the work's
      // progress, never to a very different figure (the issue saw 17 s and 2 min 50 s in turn):
      // every one stays within a factor of 2.5 of the first.
      const doneTimes = clipEnd.seen.map((e) => (e.doneAt - queuedAt) / 1000);
      const first = doneTimes[0] as number;
      for (const doneTime of doneTimes) {
        expect(doneTime / first, `${report} ${JSON.stringify(doneTimes)}`).toBeGreaterThan(0.4);
        expect(doneTime / first, `${report} ${JSON.stringify(doneTimes)}`).toBeLessThan(2.5);
      }
    },
  );
});
