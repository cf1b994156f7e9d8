/** The ffmpeg restoration engine: measure, probe, (detect shake,) restore, verify. */
import { rename, rm } from "node:fs/promises";
import type {
  RestoreEngine as RestoreEngineContract,
  RestoreJob,
  RestoreOutcome,
} from "../contracts.js";
import { unmetFfmpegNeeds } from "../ffmpeg.js";
import { parseSourceInfo } from "./analysis.js";
import { buildRestoreArgs, buildStabiliseDetectArgs, transformsPathFor } from "./chain.js";
import { measureDurationSec, parseOutTimeSec, scanDurationSec } from "./duration.js";
import { CORRUPT_MESSAGE, MediaError } from "./errors.js";
import { probeForPlan } from "./probe.js";
import { createProgressParser, type ProgressSpan } from "./progress.js";
import { bothOrAbort, probeJson, runFfmpegForMedia } from "./run.js";
import type { EncodePlan, RestorePlan, RestoreQuality } from "./types.js";

/**
 * The contract's restore job; `prepared` is a plan from `prepare` (or `probeForPlan`) of the
 * same file, so the restore does not probe again.
 */
export interface RestoreInput extends RestoreJob<RestorePlan> {
  quality: RestoreQuality;
}

export interface RestoreResult extends RestoreOutcome {
  /**
   * Real duration of the input: the caller's packet scan when it gave one, else where the
   * restore's own decode of every packet ended (a scan of its own only when the headers hold no
   * duration to show progress against).
   */
  durationSec: number;
  /** Size of the delivered video. */
  width: number;
  height: number;
  plan: RestorePlan;
  /** Wall time of the whole restore, for speed reporting. */
  elapsedMs: number;
}

/** The ffmpeg engine: the contract, with its richer input and result. */
export interface RestoreEngine extends RestoreEngineContract<RestorePlan> {
  /** Real duration by packet scan (not the header). Throws MediaError for unreadable/corrupt input. */
  measureDurationSec(inputPath: string, signal?: AbortSignal): Promise<number>;
  /** The probe and the plan it decides; throws MediaError for unreadable input. */
  prepare(job: Pick<RestoreJob, "inputPath" | "quality" | "signal">): Promise<RestorePlan>;
  restore(input: RestoreInput): Promise<RestoreResult>;
}

export interface FfmpegRestoreEngineOptions {
  /** Threads for decode, filters and x264; default: ffmpeg's own choice (all cores). */
  threads?: number;
  /** x264 preset; default "veryfast" (the speed/size trade-off measured in FACTS.md). */
  x264Preset?: string;
}

/** Share of the progress bar the probe and the stabiliser's detect pass stand for. */
const PROBE_SHARE = 0.05;
const DETECT_SHARE = 0.15;

/** Runs one ffmpeg pass with progress; resolves with where its timeline ended, in seconds. */
async function runPass(
  args: string[],
  durationSec: number,
  input: RestoreInput,
  span: ProgressSpan,
): Promise<number | null> {
  const onStderr = input.onProgress
    ? createProgressParser(durationSec, input.onProgress, span)
    : undefined;
  // -progress is a global option, so it goes first; it does not change the output. (No
  // -stats_period: the bundled 2018 fallback ffmpeg lacks it, and its 0.5 s default suits us.)
  const run = await runFfmpegForMedia(["-nostats", "-progress", "pipe:2", ...args], {
    signal: input.signal,
    onStderr,
  });
  return parseOutTimeSec(run.stderr);
}

async function restoreWith(
  encode: Partial<EncodePlan>,
  input: RestoreInput,
): Promise<RestoreResult> {
  const started = Date.now();
  const { inputPath, outputPath, signal } = input;
  input.onProgress?.(0);
  // Headers once; then the probe. Progress is measured against the caller's packet scan, else
  // the header's length (a lying header only makes progress jump at the end), else a scan of
  // our own beside the probe.
  const source = input.prepared?.source ?? parseSourceInfo(await probeJson(inputPath, signal));
  const headerSec = source.headerDurationSec ?? 0;
  const [lengthSec, plan] = await bothOrAbort(
    signal,
    (s) => input.durationSec ?? (headerSec > 0 ? headerSec : scanDurationSec(inputPath, s)),
    (s) => input.prepared ?? probeForPlan(inputPath, input.quality, s, { source, encode }),
  );
  input.onProgress?.(PROBE_SHARE);
  // Written under a temporary name and renamed at the end, so a reader never sees half a file.
  const partial = `${outputPath}.partial.mp4`;
  try {
    let from = PROBE_SHARE;
    if (plan.video.stabilise) {
      const span = { from, to: from + DETECT_SHARE };
      await runPass(buildStabiliseDetectArgs(plan, inputPath, partial), lengthSec, input, span);
      from = span.to;
    }
    const args = buildRestoreArgs(plan, inputPath, partial);
    const decodedSec = await runPass(args, lengthSec, input, { from, to: 0.99 });
    // A header's length is only a claim: then the decode of every packet says where it ended.
    const durationSec = input.durationSec === undefined && headerSec > 0 ? decodedSec : lengthSec;
    if (durationSec === null) throw new MediaError("corrupt", CORRUPT_MESSAGE);
    const out = parseSourceInfo(await probeJson(partial, signal));
    await rename(partial, outputPath);
    input.onProgress?.(1);
    return {
      durationSec: Math.round(durationSec * 1000) / 1000,
      width: out.width,
      height: out.height,
      plan,
      elapsedMs: Date.now() - started,
    };
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  } finally {
    await rm(transformsPathFor(partial), { force: true });
  }
}

export function createFfmpegRestoreEngine(opts: FfmpegRestoreEngineOptions = {}): RestoreEngine {
  const encode = { x264Preset: opts.x264Preset, threads: opts.threads };
  return {
    name: "ffmpeg",
    measureDurationSec,
    prepare: ({ inputPath, quality, signal }) =>
      probeForPlan(inputPath, quality, signal, { encode }),
    restore: (input) => restoreWith(encode, input),
    unmetNeeds: unmetFfmpegNeeds,
  };
}
