/**
 * The CPU clip engine: normalise the still (sharp), plan the clip, run one ffmpeg process.
 * Work happens in a private directory beside the target and the MP4 is renamed into place, so a
 * cancelled or failed run never leaves a half-written file at `outputPath`. The directory sits
 * beside the target (not in /tmp) so the rename stays on one filesystem, and it is removed even
 * while a killed ffmpeg may still be flushing: its late writes land in an unlinked file.
 */
import { mkdtemp, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { ClipEngine, ClipJob, ClipOutcome } from "../contracts.js";
import { runFfmpeg, unmetFfmpegNeeds } from "../ffmpeg.js";
import { buildClipArgs, DEFAULT_X264_THREADS } from "./args.js";
import { type NormaliseOptions, normaliseImage } from "./image.js";
import { planClip, workSize } from "./plan.js";

/** The clip engine contract (../contracts.ts), under this engine's names. */
export type ClipInput = ClipJob;
export type ClipResult = ClipOutcome;
export type { ClipEngine };

/** Settings of the built-in ffmpeg clip engine. */
export interface FfmpegClipEngineOptions {
  /** x264 threads; part of what makes the bytes reproducible, so keep it fixed per deployment. */
  threads?: number;
  image?: NormaliseOptions;
}

/** Share of the progress bar given to reading the image; ffmpeg gets the rest. */
const IMAGE_SHARE = 0.1;

/** Turns ffmpeg `-progress` lines (`out_time_us=…`) into a 0..1 fraction of the clip. */
function progressParser(durationSec: number, report: (fraction: number) => void) {
  let last = 0;
  return (chunk: string) => {
    for (const match of chunk.matchAll(/out_time_us=(\d+)/g)) {
      const fraction = Math.min(1, Number(match[1]) / 1e6 / durationSec);
      if (fraction > last) {
        last = fraction;
        report(IMAGE_SHARE + (1 - IMAGE_SHARE) * fraction * 0.99);
      }
    }
  };
}

async function makeClip(input: ClipInput, opts: FfmpegClipEngineOptions): Promise<ClipResult> {
  input.signal?.throwIfAborted();
  const report = (fraction: number) => {
    // A throwing progress callback must not crash the process from inside a stream handler.
    try {
      input.onProgress?.(fraction);
    } catch {}
  };
  const workDir = await mkdtemp(
    join(dirname(input.outputPath), `.${basename(input.outputPath)}.work-`),
  );
  const partPath = join(workDir, "clip.mp4");
  try {
    const framePath = join(workDir, "frame.png");
    const work = workSize(input.size);
    const image = await normaliseImage(input.imagePath, framePath, { ...opts.image, fill: work });
    input.signal?.throwIfAborted();
    report(IMAGE_SHARE);
    const plan = planClip({
      prompt: input.prompt,
      size: input.size,
      loop: input.loop,
      seed: input.seed,
      imageWidth: image.width,
      imageHeight: image.height,
    });
    const args = buildClipArgs(plan, framePath, partPath, {
      threads: opts.threads ?? DEFAULT_X264_THREADS,
    });
    await runFfmpeg(args, {
      signal: input.signal,
      onStderr: progressParser(plan.durationSec, report),
    });
    await rename(partPath, input.outputPath);
    report(1);
    return {
      durationSec: plan.durationSec,
      width: plan.width,
      height: plan.height,
      motion: plan.motion.kind,
      sound: plan.sound.kind,
      fps: plan.fps,
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The in-process engine on Debian ffmpeg + sharp. */
export function createFfmpegClipEngine(opts: FfmpegClipEngineOptions = {}): ClipEngine {
  return {
    name: "ffmpeg-cpu",
    makeClip: (input) => makeClip(input, opts),
    unmetNeeds: unmetFfmpegNeeds,
  };
}
