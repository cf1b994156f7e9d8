/**
 * Restore wall time through the engine (headers; picture and sound probed side by side; on
 * this short clip one encode of both, no join; the output check; the header's length, no
 * scan) vs bare ffmpeg running the same final chain in one process (buildRestoreArgs of the
 * plan the engine chose, as a person would run it by hand) on the same input, and the
 * Standard (faithful) speed as × realtime on a 480p input.
 * Engine and bare runs alternate after one warm-up of each; the headline is the median over
 * pairs of each pair's ratio (a pair runs back to back, so load drifting over the runs cancels),
 * beside the medians of the times themselves. `benchWorkerPath` times the worker's order of work
 * (length scan, probe, restore) with the probe beside the scan against the two in a row.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ffmpegBinaries, mediaProcessEnv } from "../src/engines/ffmpeg.js";
import {
  buildRestoreArgs,
  createFfmpegRestoreEngine,
  type RestorePlan,
  type RestoreQuality,
} from "../src/engines/restore/index.js";
import { sparesWaiting } from "../test/restore/processes.js";
import type { Figure } from "./lib.js";

const run = promisify(execFile);

async function make480p(file: string, seconds: number) {
  await run("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    `testsrc2=size=640x480:rate=25:duration=${seconds}`,
    "-f",
    "lavfi",
    "-i",
    `anoisesrc=d=${seconds}:c=pink:a=0.05`,
    "-vf",
    "noise=alls=12:allf=t",
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-crf",
    "23",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-shortest",
    file,
  ]);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/**
 * Idle time before every timed run, on both sides alike: a worker between jobs. The engine
 * starts its spare analysis ffmpegs after each restore; without a pause their start would land
 * inside the next run, the bare one's half the time. How long they take to load depends on the
 * machine (four: ≈ 0.1 s on one, ≈ 0.6 s on a slower one), so the pause lasts until they wait
 * for work (at most SPARES_READY_MS more).
 */
const BETWEEN_JOBS_MS = 300;
const SPARES_READY_MS = 3000;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, BETWEEN_JOBS_MS));
  for (let waited = 0; !sparesWaiting() && waited < SPARES_READY_MS; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

/**
 * One warm-up of each side (page cache, ffmpeg's libraries, whatever `a` leaves for `b`), then
 * `runs` timed pairs in alternating order, so neither side always follows the other's cache
 * state. Each pair runs back to back: its ratio is the least disturbed by load drifting.
 */
async function alternatingPairs(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  runs: number,
): Promise<{ a: number[]; b: number[]; pairRatio: number }> {
  await a();
  await b();
  const aSec: number[] = [];
  const bSec: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      aSec.push(await timed(a));
      bSec.push(await timed(b));
    } else {
      bSec.push(await timed(b));
      aSec.push(await timed(a));
    }
  }
  const pairRatio = median(aSec.map((sec, i) => sec / (bSec[i] as number)));
  return { a: aSec, b: bSec, pairRatio };
}

/**
 * `runs` interleaved engine/bare pairs after one warm-up pair. The bare run uses the plan of
 * the engine's warm-up run, so both sides run exactly the same final chain.
 */
export async function benchRestore(
  seconds: number,
  quality: RestoreQuality = "faithful",
  runs = 5,
): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-restore-"));
  try {
    const input = path.join(dir, "in.mp4");
    await make480p(input, seconds);
    const engine = createFfmpegRestoreEngine();
    let plan: RestorePlan | undefined;
    const viaEngine = async () => {
      const out = path.join(dir, "engine.mp4");
      plan = (await engine.restore({ inputPath: input, outputPath: out, quality })).plan;
    };
    // The engine's own binary and environment: the ratio is the engine's extra work only. The
    // bare run uses the plan of the engine's warm-up run: both run exactly the same chain.
    const bare = () => {
      const args = buildRestoreArgs(plan as RestorePlan, input, path.join(dir, "bare.mp4"));
      return run(
        ffmpegBinaries().ffmpeg,
        ["-hide_banner", "-nostdin", "-loglevel", "error", ...args],
        {
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, ...mediaProcessEnv() },
        },
      );
    };
    const { a: engineSec, b: bareSec, pairRatio } = await alternatingPairs(viaEngine, bare, runs);
    engine.close();
    const e = median(engineSec);
    const b = median(bareSec);
    return [
      {
        name: `restore wall vs bare ffmpeg (${quality} 480p ${seconds}s, pairs)`,
        value: pairRatio,
        unit: "×",
        baselineName: "bare ffmpeg same chain",
        baseline: 1,
        better: "lower",
        aim: "≤ 1.10",
      },
      {
        name: `restore wall, median of ${runs}`,
        value: e,
        unit: "s",
        baselineName: "bare ffmpeg same chain",
        baseline: b,
        better: "lower",
        aim: "≤ 1.10",
      },
      {
        name: `restore ${quality} 480p speed`,
        value: seconds / e,
        unit: "×rt",
        baselineName: "bare ffmpeg",
        baseline: seconds / b,
        better: "higher",
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The worker's steps on one file (see kinds/restore/executor/executor.ts): the packet scan of the
 * length and the engine's probe side by side, then the restore with both handed over — against
 * the same steps one after the other (scan, then a restore that probes). Pairs alternate as in
 * `benchRestore`; the figure is the median pair ratio, below 1 when the overlap pays.
 */
export async function benchWorkerPath(
  seconds: number,
  quality: RestoreQuality = "faithful",
  runs = 5,
): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-worker-"));
  try {
    const input = path.join(dir, "in.mp4");
    await make480p(input, seconds);
    const engine = createFfmpegRestoreEngine();
    const outputPath = path.join(dir, "out.mp4");
    const overlapped = async () => {
      const [durationSec, prepared] = await Promise.all([
        engine.measureDurationSec(input),
        engine.prepare({ inputPath: input, quality }),
      ]);
      await engine.restore({ inputPath: input, outputPath, quality, durationSec, prepared });
    };
    const inARow = async () => {
      const durationSec = await engine.measureDurationSec(input);
      await engine.restore({ inputPath: input, outputPath, quality, durationSec });
    };
    const { a: over, b: row, pairRatio } = await alternatingPairs(overlapped, inARow, runs);
    engine.close();
    return [
      {
        name: `worker steps, probe beside the scan (${seconds}s, pairs)`,
        value: pairRatio,
        unit: "×",
        baselineName: "scan then restore",
        baseline: 1,
        better: "lower",
      },
      {
        name: `worker steps, median of ${runs}`,
        value: median(over),
        unit: "s",
        baselineName: "scan then restore",
        baseline: median(row),
        better: "lower",
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Every restore figure `npm run bench` prints: the engine against bare ffmpeg on a 10 s clip
 * (the aim) and, unless quick, a 30 s one (the probe's cost is nearly fixed, so this is what it
 * comes to on a longer tape), then the worker's order of steps. The 10 s aim takes 11 pairs:
 * with 5, one run to the next moved its median pair ratio by ±0.05 on two shared cores, as much
 * as the engine's whole overhead above the aim.
 */
export async function restoreFigures(quick: boolean): Promise<Figure[]> {
  return [
    ...(await benchRestore(quick ? 4 : 10, "faithful", quick ? 3 : 11)),
    ...(quick ? [] : await benchRestore(30, "faithful", 3)),
    ...(await benchWorkerPath(quick ? 4 : 10, "faithful", quick ? 3 : 5)),
  ];
}
