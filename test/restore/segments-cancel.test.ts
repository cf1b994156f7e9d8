/**
 * Cancel mid-way (issue 37's proof: "cancel mid-way, one refund, no segment left running or
 * stored"), with the real ffmpeg engine and in-process workers on a served app: a segmented
 * restore cancelled by its owner while its segments run, and a one-piece restore cancelled
 * while its worker restores it. Each time: one refund on the ledger, the workers' ffmpeg
 * processes gone within a few heartbeats (the lease went with the job), no unit left queued or
 * running, and no file of the job or of its units left in storage.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { restoreSegmentsFeature } from "../../src/kinds/restore-segments/kind.js";
import { silentLogger } from "../../src/logger.js";
import { type JobSystem, startJobSystem } from "../../src/workers/supervisor.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { balanceOf, upload } from "./helpers.js";
import { ffmpegsNaming } from "./processes.js";

const run = promisify(execFile);
const ENV = { RESTORE_SEGMENT_SEC: "12", JOB_LEASE_MS: "5000", LOG_LEVEL: "silent" };
const dir = mkdtempSync(path.join(tmpdir(), "kinora-seg-cancel-"));
let s: ServedApp;
let workers: JobSystem | undefined;

/** `seconds` of testsrc and a sine at 320x240 25 fps, a keyframe every second. */
async function makeClip(seconds: number, name: string) {
  const out = path.join(dir, name);
  await run("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-y"],
    ...["-f", "lavfi", "-i", `testsrc=size=320x240:rate=25:duration=${seconds}`],
    ...["-f", "lavfi", "-i", `sine=frequency=440:sample_rate=48000:duration=${seconds}`],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p"],
    ...["-c:a", "aac", "-shortest", out],
  ]);
  return { path: out, sizeBytes: statSync(out).size };
}

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 120_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function newJob(video: { path: string; sizeBytes: number }, seconds: number) {
  const wallet = await s.t.newWallet(100_000);
  const body = {
    duration_sec: seconds,
    quality: "enhanced_max",
    filename: "tape.mp4",
    content_type: "video/mp4",
    size: video.sizeBytes,
  };
  const created = (await s.t.call("POST", "/cloud/jobs", { key: wallet.key, body })).body;
  expect(await upload(s.t, created, video.path)).toBeLessThan(300);
  const started = await s.t.call("POST", `/cloud/jobs/${created.job.id}/start`, {
    key: wallet.key,
  });
  expect(started.status).toBe(200);
  return { id: created.job.id as string, ...wallet, price: created.job.amount_cents as number };
}

const units = (parentId: string) =>
  s.t.deps.db
    .selectFrom("restore_segments")
    .selectAll()
    .where("parent_id", "=", parentId)
    .execute();

async function ledgerOf(jobId: string) {
  const rows = await s.t.deps.db
    .selectFrom("ledger_entries")
    .select(["kind"])
    .where("job_id", "=", jobId)
    .execute();
  return rows.map((r) => r.kind).sort();
}

/** Every file a restore job can own, and each of its units' files: none may be stored. */
async function storedFiles(jobId: string) {
  const keys = ["input", "output", "still", "before", "after"].map((f) => `restore/${jobId}/${f}`);
  for (const u of await units(jobId)) keys.push(`restoreseg/${u.id}/output`);
  const stored: string[] = [];
  for (const key of keys) if (await s.t.deps.storage.head(key)) stored.push(key);
  return stored;
}

beforeAll(async () => {
  s = await serveTestApp({ features: [restoreFeature(), restoreSegmentsFeature()], env: ENV });
  workers = await startJobSystem({
    database: s.t.database,
    queues: s.t.features.flatMap((f) => f.queues ?? []),
    executors: s.t.features.flatMap((f) => f.executors ?? []),
    workers: 2,
    leaseMs: 5000,
    log: silentLogger,
    nodeId: "cancel",
  });
});
afterAll(async () => {
  await workers?.stop(2000);
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Cancels as the owner, then waits for `ids`' ffmpeg to end; when they were last seen, in ms
 * after the cancel was sent. A worker stops at its next heartbeat (every lease/4 = 1.25 s: the
 * lease went with the job; cancel-races.test.ts holds that path alone), or sooner when the
 * ffmpeg reading the deleted input over HTTP fails first.
 */
async function cancelAndWatch(job: { id: string; key: string }, ids: string[]) {
  const at = Date.now();
  const res = await s.t.call("POST", `/cloud/jobs/${job.id}/cancel`, { key: job.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.job.status).toBe("cancelled");
  expect(res.body.job.error).toMatch(/Cancelled by its owner while it was being restored/);
  // An engine runs several ffmpeg in turn, so "ended" is none for 4 s in a row (three
  // heartbeats): a worker that kept going would have started its next one by then.
  let lastSeen = at;
  await until("the workers' ffmpeg to stop", async () => {
    if (ffmpegsNaming(ids).length > 0) lastSeen = Date.now();
    return Date.now() - lastSeen >= 4000 ? true : undefined;
  });
  return lastSeen - at;
}

describe("cancel mid-way", () => {
  it("a segmented restore: one refund, every unit stopped, its ffmpeg ended, nothing stored", async () => {
    const video = await makeClip(36, "thirty-six.mp4");
    const job = await newJob(video, 36);
    // The analysis hands the job to its units; the two workers each take a segment.
    const running = await until("two segments restoring", async () => {
      const list = (await units(job.id)).filter(
        (u) => u.role === "segment" && u.status === "running",
      );
      const ids = list.map((u) => u.id);
      return list.length >= 2 && ffmpegsNaming(ids).length >= 2 ? ids : undefined;
    });
    const all = await units(job.id);
    expect(all.filter((u) => u.role === "segment").length).toBe(3);
    const ms = await cancelAndWatch(
      job,
      all.map((u) => u.id),
    );
    expect(await ledgerOf(job.id)).toEqual(["charge", "refund"]);
    expect(await balanceOf(s.t, job.walletId)).toBe(100_000);
    const after = await units(job.id);
    expect(after.filter((u) => ["queued", "running"].includes(u.status))).toEqual([]);
    for (const id of running) {
      expect(after.find((u) => u.id === id)?.status).toBe("cancelled");
    }
    // Nothing came back: the stopped workers' reports changed nothing.
    expect(await storedFiles(job.id)).toEqual([]);
    expect(await ledgerOf(job.id)).toEqual(["charge", "refund"]);
    const read = (await s.t.call("GET", `/cloud/jobs/${job.id}`)).body.job;
    expect(read.status).toBe("cancelled");
    console.info(`segmented cancel: ffmpeg of ${running.length} segments last seen ${ms} ms after`);
  }, 240_000);

  it("a one-piece restore while its worker restores it: one refund, ffmpeg ended, nothing stored", async () => {
    // Shorter than two segments: restored in one piece.
    const video = await makeClip(20, "twenty.mp4");
    const job = await newJob(video, 20);
    await until("the restore's ffmpeg", async () =>
      ffmpegsNaming([job.id]).length > 0 ? true : undefined,
    );
    const ms = await cancelAndWatch(job, [job.id]);
    expect(await units(job.id)).toEqual([]);
    expect(await ledgerOf(job.id)).toEqual(["charge", "refund"]);
    expect(await balanceOf(s.t, job.walletId)).toBe(100_000);
    expect(await storedFiles(job.id)).toEqual([]);
    expect((await s.t.call("GET", `/cloud/jobs/${job.id}`)).body.job.status).toBe("cancelled");
    console.info(`one-piece cancel: ffmpeg last seen ${ms} ms after`);
  }, 240_000);
});
