/**
 * Running a segmented restore's first two steps: the analysis (once, over the whole file: the
 * probe and its plan, and the cut plan) and one segment's restore (on any worker, from its
 * serialisable `SegmentJob`). The join is join.ts.
 */

import { rename, rm } from "node:fs/promises";
import { recordsOf } from "../../domain/records.js";
import { FfmpegError, ffprobeJson } from "../ffmpeg.js";
import { runAveragedPass } from "./averaged-run.js";
import { transformsPathFor } from "./chain.js";
import { averagedDenoise } from "./chain-average.js";
import { probeForPlan, probeSource } from "./probe.js";
import { createProgressParser } from "./progress.js";
import { bothOrAbort, runFfmpegForMedia } from "./run.js";
import {
  buildSegmentArgs,
  buildSegmentAveragedArgs,
  buildSegmentDetectArgs,
  type SegmentJob,
  segmentContext,
} from "./segment-chain.js";
import { type CutPlan, listFrames, planCuts } from "./segments.js";
import type { EncodePlan, FadeHint, RestorePlan, RestoreQuality } from "./types.js";

/** What the analysis hands to the segments and the join: both plain data. */
export interface SegmentedAnalysis {
  plan: RestorePlan;
  cut: CutPlan;
  /** Wall time of the analysis. */
  elapsedMs: number;
}

/**
 * The analysis of a segmented restore, once over the whole file: the headers, then side by side
 * the probe (its plan: every segment is restored with the same decisions, so no joint shows a
 * jump in colour, brightness or noise) and the frame listing (where the keyframes are), then
 * the cut plan. A stabilised plan stays one piece: vid.stab chooses its zoom from the motion of
 * the whole file it reads, so segments would each zoom differently. Throws MediaError for an
 * unreadable input.
 */
export async function analyseForSegments(
  inputPath: string,
  quality: RestoreQuality,
  opts: {
    segmentSec: number;
    signal?: AbortSignal;
    encode?: Partial<EncodePlan>;
    /** What the customer said of the levels (the plan every segment is restored with). */
    fade?: FadeHint;
  },
): Promise<SegmentedAnalysis> {
  const started = Date.now();
  const { signal } = opts;
  const source = await probeSource(inputPath, signal);
  const [plan, frames] = await bothOrAbort(
    signal,
    (s) =>
      probeForPlan(inputPath, quality, s, {
        source,
        encode: opts.encode,
        ...(opts.fade ? { fade: opts.fade } : {}),
      }),
    (s) => listFrames(inputPath, source, s),
  );
  const onePieceBecause = plan.video.stabilise
    ? "the picture is stabilised, and vid.stab zooms by the motion of all it reads"
    : undefined;
  const cut = planCuts(frames, { segmentSec: opts.segmentSec, onePieceBecause });
  return { plan, cut, elapsedMs: Date.now() - started };
}

/** One `SegmentJob` per segment of `cut`, reading `input` (a path, or a URL for remote workers). */
export function segmentJobs(plan: RestorePlan, cut: CutPlan, input: string): SegmentJob[] {
  if (plan.video.stabilise && cut.segments.length > 1) {
    throw new Error("a stabilised plan is restored in one piece (analyseForSegments cuts it so)");
  }
  return cut.segments.map((segment) => ({ plan, input, segment, frameSec: cut.frameSec }));
}

/** What one segment's restore made. */
export interface SegmentResult {
  index: number;
  /** Frames in the segment's file (output frames: twice the source's at field rate). */
  frames: number;
  /** Its picture's length, seconds. */
  durationSec: number;
  width: number;
  height: number;
  /** CPU seconds ffmpeg spent (user + system, every pass): the work, whatever the load. */
  cpuSec: number;
  /** ffmpeg's peak resident memory, MiB (the largest pass): what a worker needs per segment. */
  maxRssMib: number;
  elapsedMs: number;
}

export interface SegmentRunOptions {
  signal?: AbortSignal;
  /** 0..1, increasing. */
  onProgress?: (fraction: number) => void;
}

/**
 * Restores one segment's picture to an MP4 at `outputPath` (written under a temporary name and
 * renamed when checked): the stabiliser's detect pass first when the plan steadies the picture,
 * then the encode. Checks the file holds the segment's whole length (a seek that landed late
 * would otherwise drop frames at a joint) and throws FfmpegError when it does not; MediaError
 * when the input cannot be read.
 */
export async function restoreSegment(
  job: SegmentJob,
  outputPath: string,
  opts: SegmentRunOptions = {},
): Promise<SegmentResult> {
  const started = Date.now();
  const { signal } = opts;
  const partial = `${outputPath}.partial.mp4`;
  const spanSec = job.segment.endSec - job.segment.startSec;
  let cpuSec = 0;
  let maxRssMib = 0;
  const count = (stderr: string) => {
    cpuSec += benchCpuSec(stderr);
    maxRssMib = Math.max(maxRssMib, benchMaxRssMib(stderr));
  };
  try {
    if (job.plan.video.stabilise) {
      const detect = await runFfmpegForMedia(
        ["-benchmark", ...buildSegmentDetectArgs(job, partial)],
        { signal },
      );
      count(detect.stderr);
    }
    const report = opts.onProgress;
    const onStderr = report ? createProgressParser(spanSec, report) : undefined;
    const progress = ["-nostats", "-progress", "pipe:2", "-benchmark"];
    if (averagedDenoise(job.plan)) {
      // Studio Max's motion average: two ffmpegs and the average between them.
      const pass = buildSegmentAveragedArgs(job, partial);
      const front = ["-benchmark", ...pass.front];
      const back = [...progress, ...pass.back];
      const run = await runAveragedPass({ ...pass, front, back }, { signal, onStderr });
      count(run.stderr);
      count(run.frontStderr);
      cpuSec += run.averageSec;
    } else {
      const run = await runFfmpegForMedia([...progress, ...buildSegmentArgs(job, partial)], {
        signal,
        onStderr,
      });
      count(run.stderr);
    }
    const { frames, durationSec, width, height } = await probePictureFile(partial, signal);
    checkSegmentLength(job, durationSec);
    await rename(partial, outputPath);
    opts.onProgress?.(1);
    const elapsedMs = Date.now() - started;
    const index = job.segment.index;
    const figures = { cpuSec: round3(cpuSec), maxRssMib: Math.round(maxRssMib), elapsedMs };
    return { index, frames, durationSec, width, height, ...figures };
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  } finally {
    await rm(transformsPathFor(partial), { force: true });
  }
}

/** user + sys from ffmpeg's `-benchmark` line (`bench: utime=1.2s stime=0.1s rtime=…`). */
export function benchCpuSec(stderr: string): number {
  const m = /bench: utime=([\d.]+)s stime=([\d.]+)s/.exec(stderr);
  return m ? Number(m[1]) + Number(m[2]) : 0;
}

/** ffmpeg's peak resident memory from its `-benchmark` line (`bench: maxrss=60064kB`), MiB. */
export function benchMaxRssMib(stderr: string): number {
  const m = /bench: maxrss=(\d+)kB/.exec(stderr);
  return m ? Number(m[1]) / 1024 : 0;
}

/** What one of our picture files holds: frames, length, size, and its format for the join. */
export interface PictureFile {
  frames: number;
  durationSec: number;
  width: number;
  height: number;
  /** Codec, profile, pixels, size, rate and time base: equal for every segment of a join. */
  format: string;
}

/** Reads `PictureFile` facts from one of our own files (a segment, or the joined result). */
export async function probePictureFile(path: string, signal?: AbortSignal): Promise<PictureFile> {
  const fields =
    "nb_read_packets,duration,width,height,codec_name,profile,pix_fmt,r_frame_rate,time_base";
  const args = ["-count_packets", "-select_streams", "v:0", "-show_entries", `stream=${fields}`];
  const probe = await ffprobeJson([...args, path], { signal });
  const stream = recordsOf(probe.streams)[0];
  if (!stream) throw new FfmpegError(`no picture in ${path}`, "");
  const { codec_name, profile, pix_fmt, width, height, r_frame_rate, time_base } = stream;
  return {
    frames: Number(stream.nb_read_packets),
    durationSec: Number(stream.duration),
    width: Number(width),
    height: Number(height),
    format: `${codec_name} ${profile} ${pix_fmt} ${width}x${height} ${r_frame_rate} ${time_base}`,
  };
}

/**
 * A segment's file must hold its whole span, to one output frame: a frame missing there would
 * shift every later frame of the joined picture against the sound. The last may end a few
 * frames early, as one piece does (a filter holds back its last frames at the end of input).
 */
export function checkSegmentLength(job: SegmentJob, durationSec: number): void {
  const { segment, plan, frameSec } = job;
  const fps = plan.video.output.fps;
  const outFrameSec = fps ? 1 / fps : frameSec;
  const planned = segment.endSec - segment.startSec;
  const short = planned - durationSec;
  const allowedShort = (segment.last ? 4 : 1) * outFrameSec + 1e-3;
  if (short > allowedShort || -short > outFrameSec + 1e-3) {
    throw new FfmpegError(
      `segment ${segment.index} came out ${round3(durationSec)} s long instead of ${round3(planned)} s`,
      `window ${JSON.stringify(segmentContext(plan, frameSec))}`,
    );
  }
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
