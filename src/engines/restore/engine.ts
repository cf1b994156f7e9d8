/**
 * The ffmpeg restoration engine: headers, then the picture and the sound side by side (each
 * measured, decided and encoded on its own), joined into one MP4 and checked.
 */
import { rename, rm } from "node:fs/promises";
import type {
  RestoreEngine as RestoreEngineContract,
  RestoreJob,
  RestoreOutcome,
} from "../contracts.js";
import { unmetFfmpegNeeds } from "../ffmpeg.js";
import { parseSourceInfo } from "./analysis.js";
import { runAveragedPass } from "./averaged-run.js";
import {
  buildAudioPassArgs,
  buildMuxArgs,
  buildRestoreArgs,
  buildStabiliseDetectArgs,
  buildVideoPassArgs,
  transformsPathFor,
} from "./chain.js";
import { type AveragedPass, averagedDenoise, buildAveragedPassArgs } from "./chain-average.js";
import { measureDurationSec, parseOutTimeSec, scanDurationSec } from "./duration.js";
import { CORRUPT_MESSAGE, MediaError } from "./errors.js";
import { createGraphRunner, type GraphRunner } from "./graph-process.js";
import { decidePlan } from "./plan.js";
import {
  ANALYSIS_SPARES,
  type AudioReading,
  ffmpegCapabilities,
  NOTHING_MEASURED,
  type ProbeReading,
  readAudio,
  readBoth,
  readVideo,
} from "./probe.js";
import { createProgressParser, type ProgressSpan } from "./progress.js";
import { bothOrAbort, probeJson, runFfmpegForMedia } from "./run.js";
import type { EncodePlan, Measurements, RestorePlan, RestoreQuality, SourceInfo } from "./types.js";

/**
 * The contract's restore job; `prepared` is the probe's reading from `prepare` (or `readBoth`)
 * of the same file, so the restore does not measure it again.
 */
export interface RestoreInput extends RestoreJob<ProbeReading> {
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
  /**
   * How the sound was encoded: "with-picture" in the picture's own pass (its analysis was done
   * by the time the picture's was: short files), "joined" in a pass beside it whose file was
   * then joined to the picture's (its loudness pass was still reading a long track); null
   * without sound.
   */
  soundPass: "with-picture" | "joined" | null;
  /** Wall time of the whole restore, for speed reporting. */
  elapsedMs: number;
}

/** The ffmpeg engine: the contract, with its richer input and result. */
export interface RestoreEngine extends RestoreEngineContract<ProbeReading> {
  /** Real duration by packet scan (not the header). Throws MediaError for unreadable/corrupt input. */
  measureDurationSec(inputPath: string, signal?: AbortSignal): Promise<number>;
  /** The probe: picture and sound measured side by side; throws MediaError for unreadable input. */
  prepare(job: Pick<RestoreJob, "inputPath" | "quality" | "signal">): Promise<ProbeReading>;
  restore(input: RestoreInput): Promise<RestoreResult>;
  /** Stops the spare analysis ffmpegs; a later restore starts its analysis cold. */
  close(): void;
}

export interface FfmpegRestoreEngineOptions {
  /** Threads for decode, filters and x264; default: ffmpeg's own choice (all cores). */
  threads?: number;
  /** x264 preset; default "veryfast" (the speed/size trade-off measured in FACTS.md). */
  x264Preset?: string;
  /**
   * Keep ffmpegs started ahead for the next restore's analyses, one per process they run in
   * (ANALYSIS_SPARES; default true): that restore does not wait for ffmpeg to load (≈ 0.04–
   * 0.13 s of CPU for Debian's build, by machine) before its encode.
   */
  spareAnalysis?: boolean;
}

/** Share of the progress bar the probe and the stabiliser's detect pass stand for. */
const PROBE_SHARE = 0.05;
const DETECT_SHARE = 0.15;

/**
 * Runs one ffmpeg pass (or Studio Max's averaged pair, averaged-run.ts) with progress; resolves
 * with where its timeline ended, in seconds.
 */
async function runPass(
  args: string[] | AveragedPass,
  durationSec: number,
  input: RestoreInput,
  span: ProgressSpan,
): Promise<number | null> {
  let reached = -1;
  const report = (fraction: number) => {
    if (fraction <= reached) return;
    reached = fraction;
    input.onProgress?.(fraction);
  };
  const onStderr = input.onProgress ? createProgressParser(durationSec, report, span) : undefined;
  // -progress is a global option, so it goes first; it does not change the output. (No
  // -stats_period: the bundled 2018 fallback ffmpeg lacks it, and its 0.5 s default suits us.)
  const progress = ["-nostats", "-progress", "pipe:2"];
  const opts = { signal: input.signal, onStderr };
  const run = Array.isArray(args)
    ? await runFfmpegForMedia([...progress, ...args], opts)
    : await runAveragedPass({ ...args, back: [...progress, ...args.back] }, opts);
  // The pass is done even when its stream ended short of the length (the sound ran on longer).
  report(span.to);
  return parseOutTimeSec(run.stderr);
}

/** Where a restore keeps its passes' files: beside the output, under names a reader skips. */
function workFiles(outputPath: string) {
  return {
    partial: `${outputPath}.partial.mp4`,
    video: `${outputPath}.partial.video.mp4`,
    audio: `${outputPath}.partial.audio.mp4`,
  };
}

interface Context {
  encode: Partial<EncodePlan>;
  /** Runs the analyses' graphs (the engine's, with its spare ffmpegs). */
  runner: GraphRunner;
  input: RestoreInput;
  source: SourceInfo;
  /** Where the sound's branch meets the picture's; null without sound. */
  handoff: SoundHandoff | null;
  files: ReturnType<typeof workFiles>;
}

/**
 * The sound's analysis, as far as it has come when the picture is read, and the picture's
 * answer: whether its pass takes the sound along (one process, no join) or leaves it to a pass
 * of its own.
 */
interface SoundHandoff {
  /** Set as soon as the sound's analysis has arrived. */
  heard: AudioReading | null;
  takeAlong: (withPicture: boolean) => void;
  tookAlong: Promise<boolean>;
}

function soundHandoff(): SoundHandoff {
  let takeAlong: (withPicture: boolean) => void = () => {};
  const tookAlong = new Promise<boolean>((resolve) => {
    takeAlong = resolve;
  });
  return { heard: null, takeAlong, tookAlong };
}

const planOf = (ctx: Context, measured: Measurements): RestorePlan =>
  decidePlan({
    quality: ctx.input.quality,
    ...(ctx.input.fade ? { fade: ctx.input.fade } : {}),
    source: ctx.source,
    measured,
    caps: ffmpegCapabilities,
    encode: ctx.encode,
  });

/**
 * The picture: its measurements (or the prepared ones), its plan, the stabiliser's detect pass
 * when the plan steadies the picture, and the encode, with progress. When the sound's analysis
 * has already arrived, the encode takes the sound along (the one-process chain, written
 * straight to the delivered file); else it writes the picture alone and the sound's branch
 * encodes the sound beside it. Resolves with the video measurements, where the decode of every
 * packet ended.
 */
async function pictureBranch(
  ctx: Context,
  signal: AbortSignal,
): Promise<{ measured: Measurements; decodedSec: number | null; lengthSec: number }> {
  const { input, source, handoff, files, runner } = ctx;
  const headerSec = source.headerDurationSec ?? 0;
  // Progress is measured against the caller's packet scan, else the header's length (a lying
  // header only makes progress jump at the end), else a scan of our own beside the probe.
  const [lengthSec, reading] = await bothOrAbort(
    signal,
    (s) => input.durationSec ?? (headerSec > 0 ? headerSec : scanDurationSec(input.inputPath, s)),
    (s) => input.prepared ?? readVideo(input.inputPath, input.quality, s, { source, runner }),
  );
  input.onProgress?.(PROBE_SHARE);
  // Let every callback of a promise that has already settled run (a prepared sound's among
  // them), so an analysis that is done counts as done.
  await new Promise<void>((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
  const heard = handoff?.heard ?? null;
  const plan = planOf(ctx, { ...reading.measured, ...heard });
  // Studio Max's motion average encodes from raw frames: the sound has a pass of its own.
  const averaged = averagedDenoise(plan) !== null;
  const along = heard !== null && !averaged;
  handoff?.takeAlong(along);
  // Without sound, or with it along, this pass writes the delivered file itself.
  const outputPath = handoff && !along ? files.video : files.partial;
  const run = { ...input, signal };
  let from = PROBE_SHARE;
  if (plan.video.stabilise) {
    const span = { from, to: from + DETECT_SHARE };
    await runPass(
      buildStabiliseDetectArgs(plan, input.inputPath, outputPath),
      lengthSec,
      run,
      span,
    );
    from = span.to;
  }
  const faststart = { faststart: !handoff };
  const args = averaged
    ? buildAveragedPassArgs(plan, input.inputPath, outputPath, faststart)
    : along
      ? buildRestoreArgs(plan, input.inputPath, outputPath)
      : buildVideoPassArgs(plan, input.inputPath, outputPath, faststart);
  const decodedSec = await runPass(args, lengthSec, run, { from, to: 0.99 });
  return { measured: reading.measured, decodedSec, lengthSec };
}

/**
 * The sound: hum and loudness measured; then, unless the picture's pass took it along, its
 * chain encoded on its own.
 */
async function soundBranch(
  ctx: Context,
  handoff: SoundHandoff,
  signal: AbortSignal,
): Promise<{ heard: AudioReading; decodedSec: number | null; joined: boolean }> {
  const { input, source, files } = ctx;
  const prepared = input.prepared?.audio;
  const heard = prepared
    ? await untilAborted(prepared, signal)
    : await readAudio(input.inputPath, input.quality, source, signal, { runner: ctx.runner });
  handoff.heard = heard;
  if (await untilAborted(handoff.tookAlong, signal)) {
    return { heard, decodedSec: null, joined: false };
  }
  const plan = planOf(ctx, { ...NOTHING_MEASURED, ...heard });
  const args = buildAudioPassArgs(plan, input.inputPath, files.audio);
  const run = await runFfmpegForMedia(["-nostats", "-progress", "pipe:2", ...args], { signal });
  return { heard, decodedSec: parseOutTimeSec(run.stderr), joined: true };
}

/**
 * The picture and the sound go side by side, each as soon as it is measured. On a short file
 * the sound's analysis is done before the picture's, and one pass encodes both, as a person
 * would by hand. On a long one the sound's loudness pass reads the whole track: the picture's
 * encode does not wait for it; the sound is encoded beside it once measured and the two files
 * are joined by copying packets. A failure or cancel on either side stops the other; nothing is
 * left behind but the finished file.
 */
async function restoreWith(
  encode: Partial<EncodePlan>,
  runner: GraphRunner,
  input: RestoreInput,
): Promise<RestoreResult> {
  const started = Date.now();
  const { inputPath, outputPath, signal } = input;
  input.onProgress?.(0);
  const source = input.prepared?.source ?? parseSourceInfo(await probeJson(inputPath, signal));
  const files = workFiles(outputPath);
  const handoff = source.audio ? soundHandoff() : null;
  const ctx: Context = { encode, runner, input, source, handoff, files };
  try {
    const [picture, sound] = await bothOrAbort(
      signal,
      (s) => pictureBranch(ctx, s),
      async (s) => (handoff ? soundBranch(ctx, handoff, s) : null),
    );
    if (sound?.joined) {
      const join = buildMuxArgs(files.video, files.audio, files.partial);
      await runFfmpegForMedia(join, { signal }, "muxer");
    }
    const plan = planOf(ctx, { ...picture.measured, ...sound?.heard });
    const decodedSec = longest(picture.decodedSec, sound?.decodedSec ?? null);
    // A header's length is only a claim: then the decode of every packet says where it ended.
    const headerSec = source.headerDurationSec ?? 0;
    const durationSec =
      input.durationSec === undefined && headerSec > 0 ? decodedSec : picture.lengthSec;
    if (durationSec === null) throw new MediaError("corrupt", CORRUPT_MESSAGE);
    const out = parseSourceInfo(await probeJson(files.partial, signal));
    // Written under a temporary name and renamed at the end, so a reader never sees half a file.
    await rename(files.partial, outputPath);
    input.onProgress?.(1);
    return {
      durationSec: Math.round(durationSec * 1000) / 1000,
      width: out.width,
      height: out.height,
      plan,
      soundPass: sound ? (sound.joined ? "joined" : "with-picture") : null,
      elapsedMs: Date.now() - started,
    };
  } catch (err) {
    await rm(files.partial, { force: true });
    throw err;
  } finally {
    // The stabiliser's transforms sit beside whichever file the picture's pass wrote.
    const leftovers = [
      files.video,
      files.audio,
      ...[files.video, files.partial].map(transformsPathFor),
    ];
    await Promise.all(leftovers.map((f) => rm(f, { force: true })));
    // The job is over: the next one's analysis ffmpegs load now, not inside an encode. Starting
    // a process blocks this one (≈ 2 ms each for an 80 MB Node, ≈ 6 ms at 250 MB): on the next
    // turn of the event loop, once whoever awaits this restore has its result.
    setImmediate(() => runner.restock());
  }
}

/**
 * `promise`, or the signal's reason as soon as it aborts: a prepared analysis runs under its
 * own signal, and a failed picture must not wait for it.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

/** Where the longer of the two decodes ended; null when the picture's did not say. */
function longest(video: number | null, audio: number | null): number | null {
  if (video === null) return null;
  return audio === null ? video : Math.max(video, audio);
}

export function createFfmpegRestoreEngine(opts: FfmpegRestoreEngineOptions = {}): RestoreEngine {
  const encode = { x264Preset: opts.x264Preset, threads: opts.threads };
  // The analyses are the critical path before the encode: after each restore spare ffmpegs
  // are started for the next one's, so that restore does not wait for ffmpeg to load.
  const spares = opts.spareAnalysis === false ? 0 : ANALYSIS_SPARES;
  const runner = createGraphRunner({ spares });
  return {
    name: "ffmpeg",
    measureDurationSec,
    prepare: ({ inputPath, quality, signal }) => readBoth(inputPath, quality, signal, { runner }),
    restore: (input) => restoreWith(encode, runner, input),
    unmetNeeds: unmetFfmpegNeeds,
    close: () => runner.close(),
  };
}
