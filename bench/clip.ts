/**
 * Clip wall time through the clip engine (sharp normalise + plan + ffmpeg) vs bare ffmpeg
 * running the identical command line (buildClipArgs) on an already-normalised frame.
 * The ratio is the engine's overhead: image handling, planning, progress parsing, rename.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import {
  buildClipArgs,
  type ClipSize,
  createFfmpegClipEngine,
  normaliseImage,
  planClip,
} from "../src/engines/clip/index.js";
import { workSize } from "../src/engines/clip/plan.js";
import { runFfmpeg } from "../src/engines/ffmpeg.js";
import type { Figure } from "./lib.js";

const PROMPT = "slow push in on the harbour, gulls and waves";

async function photo(file: string) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="1200">
    <defs><linearGradient id="g"><stop offset="0" stop-color="#234"/><stop offset="1" stop-color="#c96"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/><circle cx="800" cy="600" r="300" fill="#eee"/></svg>`;
  await writeFile(file, await sharp(Buffer.from(svg)).jpeg({ quality: 88 }).toBuffer());
}

const timed = async (fn: () => Promise<unknown>) => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};

const middle = (times: number[]) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0;

export async function benchClip(size: ClipSize, runs: number): Promise<Figure> {
  const dir = await mkdtemp(path.join(tmpdir(), "kinora-bench-clip-"));
  try {
    const source = path.join(dir, "photo.jpg");
    await photo(source);
    const engine = createFfmpegClipEngine();
    const clip = (outputPath: string) =>
      engine.makeClip({
        imagePath: source,
        outputPath,
        prompt: PROMPT,
        size,
        loop: false,
        seed: 7,
      });
    await clip(path.join(dir, "warm.mp4")); // warm-up: sharp init and the page cache
    const frame = path.join(dir, "frame.png");
    const image = await normaliseImage(source, frame, { fill: workSize(size) });
    const plan = planClip({
      prompt: PROMPT,
      size,
      loop: false,
      seed: 7,
      imageWidth: image.width,
      imageHeight: image.height,
    });
    const args = buildClipArgs(plan, frame, path.join(dir, "bare.mp4"));
    // Interleaved, so load from other processes on a shared machine hits both sides alike.
    const engineTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let i = 0; i < runs; i++) {
      engineTimes.push(await timed(() => clip(path.join(dir, "engine.mp4"))));
      bareTimes.push(await timed(() => runFfmpeg(args)));
    }
    const engineMs = middle(engineTimes);
    const bareMs = middle(bareTimes);
    return {
      name: `clip wall time ${size} (engine)`,
      value: engineMs,
      unit: "ms",
      baselineName: "bare ffmpeg, same args",
      baseline: bareMs,
      better: "lower",
      aim: "≤ 1.15",
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
