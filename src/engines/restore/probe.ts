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
import { analyseHum, measureLoudness } from "./probe-audio.js";
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

/** Hum over the excerpts, then loudness through the notches the hum calls for. */
async function analyseAudio(
  inputPath: string,
  dir: string,
  input: { quality: RestoreQuality; source: SourceInfo; caps: Capabilities; samples: Sample[] },
  signal: AbortSignal,
): Promise<Pick<Measurements, "hum" | "loudness">> {
  const { quality, source, caps } = input;
  const streamIndex = source.audio?.streamIndex;
  const hum = await analyseHum(inputPath, dir, { samples: input.samples, signal, streamIndex });
  const measured: Measurements = {
    windowSec: 0,
    interlace: null,
    shakeRatio: null,
    levels: null,
    hum,
    loudness: null,
  };
  // Decide the notches first: loudness is measured through the chain that will run.
  const draft = decideAudio(quality, source, measured, caps, []);
  if (!draft?.loudness) return { hum, loudness: null };
  return { hum, loudness: await measureLoudness(inputPath, draft, { signal, streamIndex }) };
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
