/**
 * Sound checks for the benchmark and the sync test: where the clicks of the test sound landed
 * (to the sample) and how much mains hum is left.
 */
import { readFile, rm } from "node:fs/promises";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";

export const SYNC_RATE = 48000;

/** Decodes the first audio stream to mono 32-bit float at SYNC_RATE, from its first sample. */
export async function decodeMono(file: string, seconds: number): Promise<Float32Array> {
  const pcm = `${file}.mono.f32`;
  const rate = String(SYNC_RATE);
  await runFfmpeg(
    ["-y", "-i", file, "-map", "0:a:0", "-t", String(seconds), "-ac", "1"].concat([
      "-ar",
      rate,
      "-f",
      "f32le",
      pcm,
    ]),
  );
  try {
    const bytes = await readFile(pcm);
    return new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 4));
  } finally {
    await rm(pcm, { force: true });
  }
}

/**
 * The sample where each click starts: the first sample within −40…+120 ms of where the click
 * should be whose magnitude reaches half the loudest sample of that window.
 */
export function clickOnsets(pcm: Float32Array, rate: number, times: number[]): number[] {
  return times.map((t) => {
    const from = Math.max(0, Math.round((t - 0.04) * rate));
    const to = Math.min(pcm.length, Math.round((t + 0.12) * rate));
    let peak = 0;
    for (let i = from; i < to; i++) peak = Math.max(peak, Math.abs(pcm[i] as number));
    for (let i = from; i < to; i++) if (Math.abs(pcm[i] as number) >= peak / 2) return i;
    return Number.NaN;
  });
}

/** Median shift of the clicks from `before` to `after`, in samples (positive: sound late). */
export function clickShift(before: number[], after: number[]): number {
  const d = before
    .map((b, i) => (after[i] as number) - b)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  return d.length ? (d[d.length >> 1] as number) : Number.NaN;
}
