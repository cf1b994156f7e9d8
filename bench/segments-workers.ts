/**
 * `npx tsx bench/segments-workers.ts`: one segmented restore through the job engine on 1 worker
 * against 2 workers (issue 37: aim ≥ 1.7× faster with 2), each segment's ffmpeg on one thread
 * (RESTORE_SEGMENT_THREADS=1), the same video in the same run — 1, then 2, then 1 again, so a
 * change in the machine's load falls on both. Wall time from start to done as the caller sees
 * it: the analysis (one worker) and the join are in both. Not a timed test: it prints what it
 * measured, with the load average, which must be below the cores for the figure to mean
 * anything (two workers need two free cores).
 *
 * Environment: BENCH_SEGMENTS_MIN (10: minutes of video), BENCH_SEGMENTS_SIZE (720x576),
 * BENCH_SEGMENT_SEC (60: RESTORE_SEGMENT_SEC), BENCH_SEGMENTS_QUALITY (faithful).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { restoreFeature } from "../src/kinds/restore/kind.js";
import { restoreSegmentsFeature } from "../src/kinds/restore-segments/kind.js";
import { silentLogger } from "../src/logger.js";
import { startJobSystem } from "../src/workers/supervisor.js";
import { upload } from "../test/restore/helpers.js";
import { serveTestApp } from "../test/served.js";

const run = promisify(execFile);
const MINUTES = Number(process.env.BENCH_SEGMENTS_MIN ?? 10);
const SIZE = process.env.BENCH_SEGMENTS_SIZE ?? "720x576";
const SEGMENT_SEC = Number(process.env.BENCH_SEGMENT_SEC ?? 60);
const QUALITY = process.env.BENCH_SEGMENTS_QUALITY ?? "faithful";
const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-segments-"));
const load = () => loadavg()[0]?.toFixed(1);
const say = (line: string) => console.log(line);

/** Test pattern with grain and a tone, a keyframe every 2 s (as a camcorder file might have). */
async function makeVideo(): Promise<{ path: string; sizeBytes: number }> {
  const out = path.join(dir, "tape.mp4");
  const sec = MINUTES * 60;
  await run("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-y"],
    ...["-f", "lavfi", "-i", `testsrc=size=${SIZE}:rate=25:duration=${sec}`],
    ...["-f", "lavfi", "-i", `sine=frequency=440:sample_rate=48000:duration=${sec}`],
    ...["-vf", "noise=alls=6:allf=t", "-c:v", "libx264", "-preset", "ultrafast", "-g", "50"],
    ...["-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", out],
  ]);
  return { path: out, sizeBytes: statSync(out).size };
}

async function main() {
  say(`segmented restore, 1 vs 2 workers: ${MINUTES} min ${SIZE} ${QUALITY}, load ${load()}`);
  const video = await makeVideo();
  const s = await serveTestApp({
    features: [restoreFeature(), restoreSegmentsFeature()],
    env: {
      RESTORE_SEGMENT_SEC: String(SEGMENT_SEC),
      RESTORE_SEGMENT_THREADS: "1",
      LOG_LEVEL: "silent",
    },
  });
  const wallet = await s.t.newWallet(10_000_000);
  const once = async (workers: number) => {
    const jobs = await startJobSystem({
      database: s.t.database,
      queues: s.t.features.flatMap((f) => f.queues ?? []),
      executors: s.t.features.flatMap((f) => f.executors ?? []),
      workers,
      leaseMs: 60_000,
      log: silentLogger,
      nodeId: `bench${workers}`,
    });
    try {
      const body = {
        duration_sec: MINUTES * 60,
        quality: QUALITY,
        filename: "tape.mp4",
        content_type: "video/mp4",
        size: video.sizeBytes,
      };
      const created = (await s.t.call("POST", "/cloud/jobs", { key: wallet.key, body })).body;
      await upload(s.t, created, video.path);
      const started = performance.now();
      await s.t.call("POST", `/cloud/jobs/${created.job.id}/start`, { key: wallet.key });
      for (;;) {
        const path = `/cloud/jobs/${created.job.id}?wait=20`;
        const job = (await s.t.call("GET", path, { key: wallet.key })).body.job;
        if (job.status === "done") break;
        if (job.status !== "processing") throw new Error(`the restore ended ${job.status}`);
      }
      return (performance.now() - started) / 1000;
    } finally {
      await jobs.stop(5000);
    }
  };
  const times: number[] = [];
  for (const workers of [1, 2, 1]) {
    const sec = await once(workers);
    times.push(sec);
    say(`  ${workers} worker${workers > 1 ? "s" : ""}: ${sec.toFixed(1)} s wall  [load ${load()}]`);
  }
  const [a, two, b] = times as [number, number, number];
  say(`  speed-up with 2 workers: ×${((a + b) / 2 / two).toFixed(2)} (aim ≥ 1.7)`);
  await s.close();
}

main().then(
  () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  },
  (err) => {
    console.error(err);
    rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  },
);
