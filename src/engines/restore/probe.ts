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
import { type Capabilities, decideAudio, decidePlan } from "./plan.js";
import { analyseHum, analyseHumAndLoudness, measureLoudness } from "./probe-audio.js";
import { analyseVideo } from "./probe-video.js";
import { bothOrAbort, probeJson } from "./run.js";
import { DEFAULT_SAMPLING, planSamples, type SamplingOptions, sampledSeconds } from "./sampling.js";
import type {
  EncodePlan,
  Measurements,
  RestorePlan,
  RestoreQuality,
  Sample,
  SourceInfo,
} from "./types.js";

export { analyseHum, measureLoudness } from "./probe-audio.js";
export { analyseVideo } from "./probe-video.js";

export interface ProbeOptions {
  signal?: AbortSignal;
  /** Where to look; default DEFAULT_SAMPLING (≈ 12 % of the file in 3–12 excerpts). */
  sampling?: Partial<SamplingOptions>;
  encode?: Partial<EncodePlan>;
  caps?: Capabilities;
  /** Headers already read (`probeSource`), to skip reading them again. */
  source?: SourceInfo;
}

/** Excerpts for vid.stab: it follows motion over a few frames, so give it whole seconds. */
const SHAKE_SAMPLE_SEC = 2;
/** Excerpts for hum: whole 1 s analysis blocks, and decoding audio costs next to nothing. */
const HUM_SAMPLE_SEC = 2;

export const ffmpegCapabilities: Capabilities = { has: (name) => hasFilter(name) };

/** Source facts from headers; throws MediaError when unreadable or without video. */
export async function probeSource(inputPath: string, signal?: AbortSignal): Promise<SourceInfo> {
  return parseSourceInfo(await probeJson(inputPath, signal));
}

const noMeasurements: Measurements = {
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
  input: { quality: RestoreQuality; source: SourceInfo; caps: Capabilities; samples: Sample[] },
  signal: AbortSignal,
): Promise<Pick<Measurements, "hum" | "loudness">> {
  const { quality, source, caps, samples } = input;
  const streamIndex = source.audio?.streamIndex;
  const plain = decideAudio(quality, source, noMeasurements, caps, []);
  if (!plain?.loudness) {
    return {
      hum: await analyseHum(inputPath, dir, { samples, signal, streamIndex }),
      loudness: null,
    };
  }
  const both = await analyseHumAndLoudness(inputPath, dir, plain, { samples, signal, streamIndex });
  const draft = decideAudio(quality, source, { ...noMeasurements, hum: both.hum }, caps, []);
  if (!draft?.hum) return { hum: both.hum, loudness: both.plainLoudness };
  return {
    hum: both.hum,
    loudness: await measureLoudness(inputPath, draft, { signal, streamIndex }),
  };
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
  const sampling = { ...DEFAULT_SAMPLING, ...opts.sampling };
  const source = opts.source ?? (await probeSource(inputPath, signal));
  const duration = source.headerDurationSec;
  // Shake and levels only matter where we would act on them: faithful never stabilises nor
  // stretches levels, so it only needs idet.
  const shake = quality !== "faithful" && caps.has("vidstabdetect");
  const levels = quality !== "faithful";
  const samples = planSamples(duration, sampling, shake ? SHAKE_SAMPLE_SEC : undefined);
  const humSamples = planSamples(duration, sampling, HUM_SAMPLE_SEC);
  const dir = await mkdtemp(join(tmpdir(), "kinora-probe-"));
  try {
    const [video, audio] = await bothOrAbort(
      signal,
      (s) => analyseVideo(inputPath, source, dir, { samples, levels, shake, signal: s }),
      async (s) =>
        source.audio
          ? analyseAudio(inputPath, dir, { quality, source, caps, samples: humSamples }, s)
          : { hum: null, loudness: null },
    );
    const measured: Measurements = {
      windowSec: sampledSeconds(samples),
      humSamples: source.audio ? humSamples : undefined,
      ...video,
      ...audio,
    };
    return decidePlan({ quality, source, measured, caps, encode: opts.encode });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
