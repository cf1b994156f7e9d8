/**
 * The audio half of the probe: mains hum over a few excerpts (one ffmpeg run), then loudness
 * over the whole track through the high-pass and the notches the hum decided.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { humProminenceOf, parseLoudnorm } from "./analysis.js";
import { audioPrefilters } from "./chain.js";
import { runFfmpegForMedia } from "./run.js";
import type { AudioPlan, Measurements, Sample } from "./types.js";

/** Mono rate for hum analysis: mains harmonics sit below 250 Hz. */
const HUM_RATE = 2000;

const sec = (x: number): string => String(Math.round(x * 1000) / 1000);

export interface HumOptions {
  /** Where to listen; default the first `windowSec` (60) seconds. */
  samples?: Sample[];
  windowSec?: number;
  signal?: AbortSignal;
  streamIndex?: number;
}

/**
 * Goertzel prominence of 50 vs 60 Hz mains harmonics over the excerpts: one input per excerpt
 * (`-ss` before `-i`, so audio outside them is never decoded), one mono PCM file each.
 */
export async function analyseHum(
  inputPath: string,
  dir: string,
  opts: HumOptions,
): Promise<Measurements["hum"]> {
  const samples = opts.samples ?? [{ startSec: 0, seconds: opts.windowSec ?? 60 }];
  const stream = (i: number) =>
    opts.streamIndex === undefined ? `${i}:a:0` : `${i}:${opts.streamIndex}`;
  const args = ["-y"];
  samples.forEach((s) => {
    if (s.startSec > 0) args.push("-ss", sec(s.startSec));
    args.push("-t", sec(s.seconds), "-vn", "-i", inputPath);
  });
  const files = samples.map((_, i) => join(dir, `hum-${i}.f32`));
  files.forEach((file, i) => {
    args.push("-map", stream(i), "-ac", "1", "-ar", String(HUM_RATE), "-f", "f32le", file);
  });
  try {
    await runFfmpegForMedia(args, { signal: opts.signal });
  } catch (err) {
    // An undecodable audio track only costs us the hum measurement, unless we were cancelled.
    if (opts.signal?.aborted) throw err;
    return null;
  }
  const excerpts: Float32Array[] = [];
  for (const file of files) {
    const bytes = await readFile(file).catch(() => null);
    if (!bytes) continue;
    excerpts.push(
      new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4)),
    );
  }
  if (excerpts.reduce((n, e) => n + e.length, 0) < HUM_RATE) return null;
  return humProminenceOf(excerpts, HUM_RATE);
}

/**
 * loudnorm first pass over the whole track, through the high-pass and hum notches. Not
 * sampled: the linear second pass needs the true integrated loudness, range and peak.
 */
export async function measureLoudness(
  inputPath: string,
  audio: Pick<AudioPlan, "highpassHz" | "hum">,
  opts: { signal?: AbortSignal; streamIndex?: number } = {},
): Promise<Measurements["loudness"]> {
  const chain = [...audioPrefilters(audio), "loudnorm=I=-16:TP=-1.5:LRA=11:print_format=json"];
  const stream = opts.streamIndex === undefined ? "0:a:0" : `0:${opts.streamIndex}`;
  const run = await runFfmpegForMedia(
    ["-vn", "-i", inputPath, "-map", stream, "-af", chain.join(","), "-f", "null", "-"],
    { signal: opts.signal },
  );
  return parseLoudnorm(run.stderr);
}
