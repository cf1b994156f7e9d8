/**
 * Sound stays in sync to the sample through a restore: a click track goes in, and every click
 * comes out at the sample it went in at (afftdn alone delays by 25 ms, 1,200 samples at 48 kHz,
 * while keeping the length). Also at 44.1 kHz, which the chain resamples before denoising.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickOnsets, clickShift, decodeMono, SYNC_RATE } from "../../bench/quality/audio.js";
import { clickTimes, soundExpression } from "../../bench/quality/degradations.js";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";
import { createFfmpegRestoreEngine } from "../../src/engines/restore/index.js";

const SECONDS = 2.5;
const engine = createFfmpegRestoreEngine({ threads: 2 });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kinora-sync-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function clickClip(rate: number): Promise<string> {
  const out = join(dir, `clicks-${rate}.mkv`);
  await runFfmpeg([
    "-y",
    "-f",
    "lavfi",
    "-i",
    `testsrc2=s=160x120:r=25:d=${SECONDS}`,
    "-f",
    "lavfi",
    "-i",
    `aevalsrc='${soundExpression(true, SECONDS)}':s=${rate}:c=stereo:d=${SECONDS}`,
    ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "pcm_s16le", out],
  ]);
  return out;
}

describe("audio sync", () => {
  it.each([48000, 44100])("keeps every click on its sample (%i Hz input)", async (rate) => {
    const input = await clickClip(rate);
    const output = join(dir, `out-${rate}.mp4`);
    const result = await engine.restore({
      inputPath: input,
      outputPath: output,
      quality: "enhanced",
    });
    expect(result.plan.audio?.denoise?.delaySamples).toBe(1200);
    const times = clickTimes(SECONDS);
    const before = clickOnsets(await decodeMono(input, SECONDS), SYNC_RATE, times);
    const afterPcm = await decodeMono(output, SECONDS + 1);
    const after = clickOnsets(afterPcm, SYNC_RATE, times);
    expect(after.every(Number.isFinite)).toBe(true);
    expect(Math.abs(clickShift(before, after))).toBeLessThanOrEqual(1);
    // The length is kept: no sound lost at the end, none added.
    expect(Math.abs(afterPcm.length - SECONDS * SYNC_RATE)).toBeLessThan(SYNC_RATE * 0.03);
  });
});
