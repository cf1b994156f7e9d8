/**
 * The probe pass: the I/O that gathers facts for `decidePlan` — stream headers, then at once
 * the video analysis (interlacing, levels, shake) and the audio analysis (hum, loudness). The
 * video and hum analyses read a few evenly spaced excerpts (see sampling.ts), not the file.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasFilter } from "../ffmpeg.js";
import { parseSourceInfo } from "./analysis.js";
import type { GraphRunner } from "./graph-process.js";
import { type Capabilities, decideAudio, decidePlan } from "./plan.js";
import { analyseHum, analyseHumAndLoudness, measureLoudness } from "./probe-audio.js";
import { ANALYSIS_PROCESSES, analyseVideo } from "./probe-video.js";
import { readQuantiser } from "./quantiser.js";
import { bothOrAbort, probeJson } from "./run.js";
import { DEFAULT_SAMPLING, planSamples, type SamplingOptions, sampledSeconds } from "./sampling.js";
import type {
  EncodePlan,
  FadeHint,
  Measurements,
  RestorePlan,
  RestoreQuality,
  Sample,
  SourceInfo,
} from "./types.js";

export { analyseHum, measureLoudness } from "./probe-audio.js";
export { analyseVideo } from "./probe-video.js";

/** Spares an engine keeps: one per process of the video analysis, and one for the sound's. */
export const ANALYSIS_SPARES = ANALYSIS_PROCESSES + 1;

export interface ProbeOptions {
  signal?: AbortSignal;
  /** Where to look; default DEFAULT_SAMPLING (≈ 12 % of the file in 3–12 excerpts). */
  sampling?: Partial<SamplingOptions>;
  encode?: Partial<EncodePlan>;
  caps?: Capabilities;
  /** Headers already read (`probeSource`), to skip reading them again. */
  source?: SourceInfo;
  /**
   * Runs the analyses' graphs (the video's, and the sound's hum and loudness); default a fresh
   * ffmpeg for each (an engine keeps spares, ANALYSIS_SPARES).
   */
  runner?: GraphRunner;
}

/**
 * The video excerpts' shortest length, at every quality: vid.stab follows motion over a few
 * frames, so it needs whole seconds; and what the analysis believes about the tape must not
 * depend on the quality asked for. Standard used to read 0.5 s excerpts on a file under 50 s
 * (where the two differ; from 50 s on the excerpts are longer anyway): on the held-out `wood
 * dropouts-grain` (3 s) its 7 pairs read grain σ 3.2 / C 5.1 and "coarse", Enhanced's 15 read
 * 2.79 / 4.89 and fine (it is fine: 1 px grains), so the two took different colour out.
 */
export const VIDEO_SAMPLE_SEC = 2;
/** Excerpts for hum: whole 1 s analysis blocks, and decoding audio costs next to nothing. */
const HUM_SAMPLE_SEC = 2;

export const ffmpegCapabilities: Capabilities = { has: (name) => hasFilter(name) };

/** Source facts from headers; throws MediaError when unreadable or without video. */
export async function probeSource(inputPath: string, signal?: AbortSignal): Promise<SourceInfo> {
  return parseSourceInfo(await probeJson(inputPath, signal));
}

/** Nothing measured yet: each half of the probe fills in its own part. */
export const NOTHING_MEASURED: Measurements = {
  windowSec: 0,
  interlace: null,
  shakeRatio: null,
  levels: null,
  hum: null,
  loudness: null,
};

/**
 * Hum over the excerpts, and loudness through the notches the hum calls for. Loudness is
 * measured through the chain that will run, so it depends on the hum; measuring it without
 * notches in the hum's own run is right whenever there is no hum (most files), and only a
 * file with hum pays a second run.
 */
async function analyseAudio(
  inputPath: string,
  dir: string,
  input: {
    quality: RestoreQuality;
    source: SourceInfo;
    caps: Capabilities;
    samples: Sample[];
    runner?: GraphRunner;
  },
  signal?: AbortSignal,
): Promise<Pick<Measurements, "hum" | "loudness">> {
  const { quality, source, caps, samples, runner } = input;
  const streamIndex = source.audio?.streamIndex;
  const plain = decideAudio(quality, source, NOTHING_MEASURED, caps, []);
  if (!plain?.loudness) {
    return {
      hum: await analyseHum(inputPath, dir, { samples, signal, streamIndex }),
      loudness: null,
    };
  }
  const both = await analyseHumAndLoudness(inputPath, dir, plain, {
    samples,
    signal,
    streamIndex,
    runner,
  });
  const draft = decideAudio(quality, source, { ...NOTHING_MEASURED, hum: both.hum }, caps, []);
  if (!draft?.hum) return { hum: both.hum, loudness: both.plainLoudness };
  return {
    hum: both.hum,
    loudness: await measureLoudness(inputPath, draft, { signal, streamIndex }),
  };
}

/**
 * The video half of the probe: the headers' facts and what the video analysis measured (no
 * sound measured yet). Enough to decide the picture's whole chain and start encoding it while
 * the sound is still being measured; `prepare` hands it to `restore`.
 */
export interface VideoReading {
  source: SourceInfo;
  /** The video measurements; `hum` and `loudness` are null here. */
  measured: Measurements;
}

/** What the audio half measured: hum over its excerpts and the loudness of the whole track. */
export type AudioReading = Pick<Measurements, "hum" | "loudness" | "humSamples">;

/** Interlacing, noise and (for the enhanced qualities) levels and shake over a few excerpts. */
export async function readVideo(
  inputPath: string,
  quality: RestoreQuality,
  signal?: AbortSignal,
  opts: Omit<ProbeOptions, "signal" | "encode"> = {},
): Promise<VideoReading> {
  const caps = opts.caps ?? ffmpegCapabilities;
  const sampling = { ...DEFAULT_SAMPLING, ...opts.sampling };
  const source = opts.source ?? (await probeSource(inputPath, signal));
  // Shake and levels only matter where we would act on them: faithful never stabilises nor
  // stretches levels, so it only needs idet.
  const shake = quality !== "faithful" && caps.has("vidstabdetect");
  const levels = quality !== "faithful";
  // Only Studio Max sharpens a picture enlarged from a coarser grid (plan.ts decideSharpen).
  const grid = quality === "enhanced_max";
  const samples = planSamples(source.headerDurationSec, sampling, VIDEO_SAMPLE_SEC);
  return inScratchDir("kinora-probe-video-", async (dir) => {
    const runner = opts.runner;
    // The quantiser beside the analysis (its own decode, on one thread): only the enhanced
    // qualities size a picture by it (blocks-plan.ts sizeQuality). A failed read is no reading.
    const [video, quantiser] = await bothOrAbort(
      signal,
      (s) =>
        analyseVideo(inputPath, source, dir, { samples, levels, grid, shake, signal: s, runner }),
      (s) =>
        levels
          ? readQuantiser(inputPath, source, samples, s).catch((err: unknown) => {
              if (s.aborted) throw err;
              return null;
            })
          : null,
    );
    const read = { ...video, ...(levels ? { quantiser } : {}) };
    return {
      source,
      measured: { ...NOTHING_MEASURED, windowSec: sampledSeconds(samples), ...read },
    };
  });
}

/** Hum and loudness of the sound track (`source.audio`, which the caller has checked). */
export async function readAudio(
  inputPath: string,
  quality: RestoreQuality,
  source: SourceInfo,
  signal?: AbortSignal,
  opts: Pick<ProbeOptions, "sampling" | "caps" | "runner"> = {},
): Promise<AudioReading> {
  const caps = opts.caps ?? ffmpegCapabilities;
  const sampling = { ...DEFAULT_SAMPLING, ...opts.sampling };
  const humSamples = planSamples(source.headerDurationSec, sampling, HUM_SAMPLE_SEC);
  return inScratchDir("kinora-probe-audio-", async (dir) => {
    const input = { quality, source, caps, samples: humSamples, runner: opts.runner };
    return { ...(await analyseAudio(inputPath, dir, input, signal)), humSamples };
  });
}

/** Runs `task` in a fresh temporary folder, removed afterwards whatever happened. */
async function inScratchDir<T>(prefix: string, task: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await task(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Both halves of the probe: what `prepare` returns for `restore`. */
export interface ProbeReading extends VideoReading {
  /**
   * The sound's half, still at work when the picture's is done: the loudness pass reads the
   * whole track, and `restore` waits for it only before the sound's own encode, never before
   * the picture's. Null for a file without sound.
   */
  audio: Promise<AudioReading> | null;
}

/**
 * Both halves at once. Resolves when the picture is read; the sound's analysis, under the same
 * signal, runs on (on a short file it finishes beside the picture's, on the core the picture's
 * one-thread decode leaves; on a long tape its loudness pass outlasts it by minutes). Should
 * the picture's half fail, the sound's is stopped.
 */
export async function readBoth(
  inputPath: string,
  quality: RestoreQuality,
  signal?: AbortSignal,
  opts: Omit<ProbeOptions, "signal" | "encode"> = {},
): Promise<ProbeReading> {
  const caps = opts.caps ?? ffmpegCapabilities;
  const source = opts.source ?? (await probeSource(inputPath, signal));
  const sound = new AbortController();
  const forward = () => sound.abort(signal?.reason);
  signal?.addEventListener("abort", forward, { once: true });
  const audio = source.audio
    ? readAudio(inputPath, quality, source, sound.signal, { ...opts, caps })
    : null;
  // Whoever awaits it sees its failure; nobody awaiting it (a restore never run) is no error.
  void (audio ?? Promise.resolve())
    .catch(() => {})
    .finally(() => signal?.removeEventListener("abort", forward));
  try {
    const video = await readVideo(inputPath, quality, signal, { ...opts, source, caps });
    return { ...video, audio };
  } catch (err) {
    sound.abort(err);
    throw err;
  }
}

/**
 * Probes the file and decides the whole chain. Throws MediaError for unreadable input or input
 * without video. The returned plan is plain data: `buildRestoreArgs(plan, …)` reproduces it.
 */
export async function probeForPlan(
  inputPath: string,
  quality: RestoreQuality,
  signal?: AbortSignal,
  opts: Omit<ProbeOptions, "signal"> & { fade?: FadeHint } = {},
): Promise<RestorePlan> {
  const { fade, ...probe } = opts;
  const caps = probe.caps ?? ffmpegCapabilities;
  const reading = await readBoth(inputPath, quality, signal, { ...probe, caps });
  const measured: Measurements = { ...reading.measured, ...(await reading.audio) };
  return decidePlan({
    quality,
    ...(fade ? { fade } : {}),
    source: reading.source,
    measured,
    caps,
    encode: probe.encode,
  });
}
