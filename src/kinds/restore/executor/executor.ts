/**
 * The restore Executor: get the input (download it, or fetch a video_url job's from its URL
 * into storage), measure its real length (refused and refunded when far above the declared
 * one; noted to the server at once, which gives back what a shorter length does not cost),
 * restore it with the configured engine, store the result and its before/after still.
 */
import path from "node:path";
import type { RestoreEngine, RestoreOutcome } from "../../../engines/contracts.js";
import { analyseForSegments, MediaError } from "../../../engines/restore/index.js";
import {
  type ExecuteContext,
  type Executor,
  WorkError,
  type WorkItem,
  type WorkResult,
} from "../../../jobs/work.js";
import { storeBeforeAfter } from "../../../workers/before-after.js";
import { downloadInput, type FetchLike, uploadOutput } from "../../../workers/transfer.js";
import { tooLong } from "../rules/limits.js";
import { RESTORE_MESSAGES } from "../rules/transitions.js";
import { RestoreWorkParams, restoreJobs, SEGMENTED_PROGRESS } from "../services/definition.js";
import type { VideoFetchSeam } from "../services/deps.js";
import type { RestoreNote } from "../services/measurement.js";
import { FETCH_PROGRESS, type FetchedInput, fetchSourceVideo } from "./source.js";

/** The input's fault ends the job with the engine's sentence; ffmpeg's own words go to the log. */
const asFinal = (err: unknown) =>
  err instanceof MediaError
    ? new WorkError({ kind: "final", message: err.message, code: err.code }, err.detail)
    : err;

/** What the restore executor is built with. */
interface RestoreExecutorOptions {
  engine: RestoreEngine;
  fetch?: FetchLike;
  /** Test seams of a video_url fetch (a local server, shorter caps). */
  videoFetch?: VideoFetchSeam;
  /**
   * RESTORE_SEGMENT_SEC (the ffmpeg engine): a video at least twice this long is analysed here
   * and handed to segments any worker restores; 0 or absent: always one piece.
   */
  segmentSec?: number;
  /** RESTORE_SEGMENT_THREADS: each segment's ffmpeg threads (0 or absent: ffmpeg's choice). */
  segmentThreads?: number;
}

/** The input in the scratch folder, by whichever way it comes (the caller's URL or an upload). */
async function getInput(
  opts: RestoreExecutorOptions,
  fetchImpl: FetchLike,
  item: WorkItem<RestoreWorkParams>,
  ctx: ExecuteContext,
  inputPath: string,
): Promise<FetchedInput> {
  const { source, sizeBytes, contentType } = item.params;
  if (source) {
    const seam = opts.videoFetch ?? {};
    const { signal, progress } = ctx;
    return fetchSourceVideo({
      fetchImpl,
      item,
      source,
      destPath: inputPath,
      seam,
      signal,
      progress,
    });
  }
  const bytes = await downloadInput(fetchImpl, item.inputUrl, inputPath, sizeBytes, ctx.signal);
  return { bytes, contentType };
}

/** Stores the restored video and, when asked, its still; the attempt's result. */
async function storeResult(
  opts: RestoreExecutorOptions,
  fetchImpl: FetchLike,
  item: WorkItem<RestoreWorkParams>,
  ctx: ExecuteContext,
  files: { inputPath: string; outputPath: string; realSec: number; result: RestoreOutcome },
): Promise<WorkResult> {
  const { inputPath, outputPath, realSec, result } = files;
  const outputBytes = await uploadOutput(fetchImpl, item, outputPath, "video/mp4", ctx.signal);
  // The still is a courtesy: a restore without one is still done.
  const { still: stillTicket, frames } = item.params;
  const still = stillTicket
    ? await storeBeforeAfter(fetchImpl, item, { still: stillTicket, frames }, ctx, {
        inputPath,
        outputPath,
        durationSec: realSec,
        width: result.width,
        height: result.height,
      })
    : false;
  ctx.progress(1);
  return {
    outputBytes,
    meta: {
      measuredDurationSec: realSec,
      width: result.width,
      height: result.height,
      engine: opts.engine.name,
      still,
    },
  };
}

/** The restore kind's executor: fetch the input, measure, restore, store the result. */
export function createRestoreExecutor(opts: RestoreExecutorOptions): Executor<RestoreWorkParams> {
  const fetchImpl: FetchLike = opts.fetch ?? ((url, init) => fetch(url, init));
  return {
    kind: restoreJobs.kind,
    params: RestoreWorkParams,
    unmetNeeds: () => opts.engine.unmetNeeds?.() ?? [],
    async execute(item, ctx) {
      const params = item.params;
      const inputPath = path.join(ctx.workDir, "input");
      const outputPath = path.join(ctx.workDir, "output.mp4");
      const input = await getInput(opts, fetchImpl, item, ctx, inputPath);
      const start = params.source ? FETCH_PROGRESS : 0.02;
      ctx.progress(start);
      // The engine reads the file (its probe) while the length is measured: both only read,
      // and the restore can start the moment the length is known to be paid for.
      const early = startEarly(ctx.signal, (signal) =>
        opts.engine.prepare?.({ inputPath, quality: params.quality, signal }),
      );
      let prepared: unknown;
      let realSec: number;
      let result: RestoreOutcome;
      try {
        realSec = await opts.engine.measureDurationSec(inputPath, ctx.signal);
        if (tooLong(realSec, params.declaredDurationSec)) {
          throw new WorkError({
            kind: "too_long",
            message: RESTORE_MESSAGES.tooLong(realSec, params.declaredDurationSec),
          });
        }
        const note: RestoreNote = {
          measuredDurationSec: realSec,
          inputBytes: input.bytes,
          contentType: input.contentType,
        };
        await ctx.note(note);
        if (isLong(opts, realSec)) {
          // The probe started beside the measurement is the one-piece restore's: not needed.
          early.stop();
          const segmented = await analyseForSegmentsIfCut(opts, inputPath, params, ctx);
          if (segmented)
            return { ...segmented, meta: { ...segmented.meta, measuredDurationSec: realSec } };
        }
        prepared = await early.result;
        result = await opts.engine.restore({
          inputPath,
          inputUrl: item.inputUrl,
          outputPath,
          durationSec: realSec,
          quality: params.quality,
          ...(params.fade ? { fade: params.fade } : {}),
          signal: ctx.signal,
          onProgress: (f) => ctx.progress(start + (0.95 - start) * f),
          prepared,
        });
      } catch (err) {
        throw asFinal(err);
      } finally {
        // Only now: what the engine prepared may still be at work for the restore (the ffmpeg
        // engine's sound analysis runs on beside the picture's encode).
        early.stop();
      }
      return storeResult(opts, fetchImpl, item, ctx, { inputPath, outputPath, realSec, result });
    },
  };
}

/**
 * A video at least two segments long: the analysis once over the whole file (the plan every
 * segment is restored with, and where it is cut), returned for the server to hand to the
 * segments (the restore's definition: `meta.segmented`). Undefined when it stays one piece
 * (a stabilised picture; keyframes too sparse to cut).
 */
async function analyseForSegmentsIfCut(
  opts: { segmentSec?: number; segmentThreads?: number },
  inputPath: string,
  { quality, fade }: Pick<RestoreWorkParams, "quality" | "fade">,
  ctx: ExecuteContext,
): Promise<WorkResult | undefined> {
  const { plan, cut } = await analyseForSegments(inputPath, quality, {
    segmentSec: opts.segmentSec ?? 0,
    ...(fade ? { fade } : {}),
    signal: ctx.signal,
    ...(opts.segmentThreads ? { encode: { threads: opts.segmentThreads } } : {}),
  });
  if (cut.segments.length < 2) return;
  ctx.progress(SEGMENTED_PROGRESS);
  return { outputBytes: 0, meta: { segmented: { plan, cut } } };
}

/** Long enough for segments: two of RESTORE_SEGMENT_SEC, with the ffmpeg engine. */
function isLong(opts: { engine: RestoreEngine; segmentSec?: number }, realSec: number): boolean {
  const segmentSec = opts.segmentSec ?? 0;
  return opts.engine.name === "ffmpeg" && segmentSec > 0 && realSec >= 2 * segmentSec;
}

/**
 * Starts `task` now under its own signal (aborted with the job's), for a result read later.
 * `stop` aborts it when it is no longer wanted (harmless once it has finished); a failure is
 * seen only by whoever awaits `result`, never as an unhandled rejection.
 */
function startEarly<T>(
  jobSignal: AbortSignal,
  task: (signal: AbortSignal) => Promise<T> | undefined,
): { result: Promise<T | undefined>; stop: () => void } {
  const own = new AbortController();
  const forward = () => own.abort(jobSignal.reason);
  jobSignal.addEventListener("abort", forward, { once: true });
  const result = Promise.resolve().then(() => task(own.signal));
  result.catch(() => {});
  return {
    result,
    stop: () => {
      jobSignal.removeEventListener("abort", forward);
      own.abort();
    },
  };
}
