/**
 * The probe pass: the I/O that gathers facts for `decidePlan` — stream headers, interlacing
 * (idet), levels (signalstats), camera shake (vidstabdetect), mains hum and loudness.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasFilter } from "../ffmpeg.js";
import {
  humProminence,
  parseIdetSummary,
  parseLoudnorm,
  parseSignalstats,
  parseSourceInfo,
  parseVidstabMotions,
  shakeRatio,
} from "./analysis.js";
import { audioPrefilters, escapeFilterValue } from "./chain.js";
import { type Capabilities, decidePlan } from "./plan.js";
import { probeJson, runFfmpegForMedia } from "./run.js";
import type {
  AudioPlan,
  EncodePlan,
  Measurements,
  RestorePlan,
  RestoreQuality,
  SourceInfo,
} from "./types.js";

export interface ProbeOptions {
  signal?: AbortSignal;
  /** Seconds from the start that the video and hum analysis look at (loudness reads it all). */
  windowSec?: number;
  encode?: Partial<EncodePlan>;
  caps?: Capabilities;
}

/** Height the shake and levels analysis runs at: enough detail, a fraction of the cost. */
const ANALYSIS_HEIGHT = 360;
/** Mono rate for hum analysis: mains harmonics sit below 250 Hz. */
const HUM_RATE = 2000;

export const ffmpegCapabilities: Capabilities = { has: (name) => hasFilter(name) };

/** Source facts from headers; throws MediaError when unreadable or without video. */
export async function probeSource(inputPath: string, signal?: AbortSignal): Promise<SourceInfo> {
  return parseSourceInfo(await probeJson(inputPath, signal));
}

/** idet on full-resolution fields; signalstats and vidstabdetect on a small, denoised copy. */
export async function analyseVideo(
  inputPath: string,
  source: SourceInfo,
  dir: string,
  opts: { windowSec: number; shake: boolean; signal?: AbortSignal },
): Promise<Pick<Measurements, "interlace" | "shakeRatio" | "levels">> {
  const statsPath = join(dir, "signalstats.txt");
  const trfPath = join(dir, "shake.trf");
  // One field per frame: combing would read as vertical jitter. Progressive input just loses
  // every other line, which motion search does not mind.
  const fieldHeight = Math.floor(source.height / 2);
  const height = Math.min(ANALYSIS_HEIGHT, fieldHeight - (fieldHeight % 2));
  // Levels on a quarter-size, denoised copy: grain must not pass for black or white.
  const stats = `scale=trunc(iw/8)*2:trunc(ih/8)*2:flags=area,hqdn3d=4:3:6:4.5,signalstats,metadata=mode=print:file=${escapeFilterValue(statsPath)}`;
  const motion = `field=top,scale=-2:${height},hqdn3d=4:3:6:4.5,vidstabdetect=result=${escapeFilterValue(trfPath)}:shakiness=5:accuracy=9`;
  // idet's default intl_thres (1.04) read progressive testsrc2 as 82% TFF; at 1.2 it read it
  // progressive while interlaced testsrc2/mandelbrot/gradients/life all still read ≥98% TFF.
  const front = `[0:${source.videoStreamIndex}]idet=intl_thres=1.2,format=yuv420p`;
  const graph = opts.shake
    ? `${front},split=2[a][b];[a]${stats}[o1];[b]${motion}[o2]`
    : `${front},${stats}[o1]`;
  const args = ["-t", String(opts.windowSec), "-noautorotate", "-i", inputPath];
  args.push("-filter_complex", graph, "-map", "[o1]", "-f", "null", "-");
  if (opts.shake) args.push("-map", "[o2]", "-f", "null", "-");
  const run = await runFfmpegForMedia(args, { signal: opts.signal });
  const levels = parseSignalstats(await readFile(statsPath, "utf8").catch(() => ""));
  let shake: number | null = null;
  if (opts.shake) {
    const trf = await readFile(trfPath, "utf8").catch(() => "");
    const fps = source.fps ?? 25;
    shake = shakeRatio(parseVidstabMotions(trf), height, Math.max(2, Math.round(fps / 4)));
  }
  return { interlace: parseIdetSummary(run.stderr), shakeRatio: shake, levels };
}

/** Goertzel prominence of 50 vs 60 Hz mains harmonics over the first window of audio. */
export async function analyseHum(
  inputPath: string,
  dir: string,
  opts: { windowSec: number; signal?: AbortSignal; streamIndex?: number },
): Promise<Measurements["hum"]> {
  const rawPath = join(dir, "hum.f32");
  const stream = opts.streamIndex === undefined ? "0:a:0" : `0:${opts.streamIndex}`;
  const args = ["-y", "-t", String(opts.windowSec), "-i", inputPath, "-map", stream];
  args.push("-ac", "1", "-ar", String(HUM_RATE), "-f", "f32le", rawPath);
  try {
    await runFfmpegForMedia(args, { signal: opts.signal });
  } catch (err) {
    // An undecodable audio track only costs us the hum measurement, unless we were cancelled.
    if (opts.signal?.aborted) throw err;
    return null;
  }
  const bytes = await readFile(rawPath).catch(() => null);
  if (!bytes || bytes.byteLength < HUM_RATE * 4) return null;
  const samples = new Float32Array(
    bytes.buffer,
    bytes.byteOffset,
    Math.floor(bytes.byteLength / 4),
  );
  return humProminence(samples, HUM_RATE);
}

/** loudnorm first pass over the whole track, through the high-pass and hum notches. */
export async function measureLoudness(
  inputPath: string,
  audio: Pick<AudioPlan, "highpassHz" | "hum">,
  opts: { signal?: AbortSignal; streamIndex?: number } = {},
): Promise<Measurements["loudness"]> {
  const chain = [...audioPrefilters(audio), "loudnorm=I=-16:TP=-1.5:LRA=11:print_format=json"];
  const stream = opts.streamIndex === undefined ? "0:a:0" : `0:${opts.streamIndex}`;
  const run = await runFfmpegForMedia(
    ["-i", inputPath, "-map", stream, "-af", chain.join(","), "-f", "null", "-"],
    { signal: opts.signal },
  );
  return parseLoudnorm(run.stderr);
}

/**
 * Probes the file and decides the whole chain. Throws MediaError for unreadable input or input
 * without video. The returned plan is plain data: `buildRestoreArgs(plan, …)` reproduces it.
 */
export async function probeForPlan(
  inputPath: string,
  quality: RestoreQuality,
  signal?: AbortSignal,
  opts: Omit<ProbeOptions, "signal"> = {},
): Promise<RestorePlan> {
  const caps = opts.caps ?? ffmpegCapabilities;
  const windowSec = opts.windowSec ?? 60;
  const source = await probeSource(inputPath, signal);
  const dir = await mkdtemp(join(tmpdir(), "kinora-probe-"));
  try {
    // Shake only matters where we would act on it: faithful never stabilises.
    const shake = quality !== "faithful" && caps.has("vidstabdetect");
    const video = await analyseVideo(inputPath, source, dir, { windowSec, shake, signal });
    const measured: Measurements = { windowSec, ...video, hum: null, loudness: null };
    if (source.audio) {
      const streamIndex = source.audio.streamIndex;
      measured.hum = await analyseHum(inputPath, dir, { windowSec, signal, streamIndex });
      // Decide the notches first: loudness is measured through the chain that will run.
      const draft = decidePlan({ quality, source, measured, caps });
      if (draft.audio?.loudness) {
        measured.loudness = await measureLoudness(inputPath, draft.audio, { signal, streamIndex });
      }
    }
    return decidePlan({ quality, source, measured, caps, encode: opts.encode });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
