/**
 * One segment's picture encode, as ffmpeg arguments (pure). It is the whole file's picture
 * pass (`buildVideoPassArgs`: the same filters, the same x264 settings) with two additions:
 *
 * - an input seek a little before the segment's first frame and a read that stops a little
 *   after its last, so every filter that looks at neighbouring frames (the deinterlacer, the
 *   deflicker's window, the dropout repair's median, motion interpolation) sees at the cut
 *   exactly the frames it sees in one piece. `-ss` before `-i` lands on the keyframe at or
 *   before and drops the frames before the time asked (decoded, never filtered);
 * - a trim after the chain (output `-ss`/`-t`: ffmpeg inserts it behind the filter graph) that
 *   keeps the output frames whose times lie in [startSec, endSec), a quarter of an output
 *   frame early on both sides, so two neighbouring segments agree on every frame near the cut
 *   whatever the rounding, also when the chain doubles the rate (field-rate deinterlacing,
 *   interpolation): both frames made from a source frame go with it.
 *
 * x264 starts every segment on an IDR frame with a closed GOP, so the pieces join by copying
 * their packets (join.ts). Nothing here depends on which machine runs it: a job is plain data.
 */
import { buildStabiliseDetectArgs, buildVideoPassArgs } from "./chain.js";
import { type AveragedPass, buildAveragedPassArgs } from "./chain-average.js";
import type { SegmentSpec } from "./segments.js";
import type { RestorePlan } from "./types.js";

/**
 * Everything one worker needs to restore one segment: plain data (JSON round-trips), so a
 * process or machine other than the one that analysed the file can run it.
 */
export interface SegmentJob {
  /** The whole file's plan (one analysis, every segment restored with the same decisions). */
  plan: RestorePlan;
  /** Where to read the input: a local path or a URL ffmpeg can seek in (HTTP range requests). */
  input: string;
  segment: SegmentSpec;
  /** The source's frame interval (`CutPlan.frameSec`), seconds. */
  frameSec: number;
}

/** How much the chain looks back before a cut and ahead after it, seconds. */
export interface SegmentContext {
  beforeSec: number;
  afterSec: number;
}

/**
 * Frames of context on each side of a cut. The widest window in the chain today is the
 * deflicker's (4 frames ahead); bwdif and yadif read one frame either side, the dropout
 * repair's median one, minterpolate two. 12 leaves room for a filter added later with a window
 * of its own, and costs ≈ 0.4 % of a 120 s segment's work; the segment tests compare the
 * joined frames bit for bit with one piece, so a wider filter fails them rather than a joint.
 */
export const CONTEXT_FRAMES = 12;

/**
 * hqdn3d is recursive even with no temporal strength: where a pixel changes by less than 1/16
 * of a code from the frame before (still, clean areas), it keeps the earlier frame's value at
 * 16-bit precision, so a segment starting without that frame can round a pixel one code
 * otherwise. Two seconds of look-back made every frame of the grainy test clip identical to one
 * piece (0.48 s left 104 of 400 frames a code off in places); a shot still for longer than that
 * across a cut may keep a few pixels one code apart.
 */
export const RECURSIVE_CONTEXT_SEC = 2;

/** The look-back and look-ahead `plan`'s chain needs at a cut, for frames `frameSec` apart. */
export function segmentContext(plan: RestorePlan, frameSec: number): SegmentContext {
  const frames = CONTEXT_FRAMES * frameSec;
  const recursive = plan.video.denoise.some((d) => d.filter === "hqdn3d");
  const beforeSec = recursive ? Math.max(frames, RECURSIVE_CONTEXT_SEC) : frames;
  return { beforeSec, afterSec: frames };
}

/** Where the segment's read starts and stops, and which output frames it keeps. */
export interface SegmentWindow {
  /** The input's `-ss` and `-t`. */
  seekSec: number;
  readSec: number;
  /** The output's `-ss` and `-t`, on the seeked timeline (which starts at `seekSec`). */
  keepFromSec: number;
  keepSec: number;
}

/**
 * The read and the trim of one segment (see the header); `context` defaults to what the plan's
 * chain needs (`segmentContext`).
 */
export function segmentWindow(
  job: SegmentJob,
  context: SegmentContext = segmentContext(job.plan, job.frameSec),
): SegmentWindow {
  const { plan, segment, frameSec } = job;
  const outFps = plan.video.output.fps;
  const early = Math.min(frameSec, outFps ? 1 / outFps : frameSec) / 4;
  const seekSec = round6(Math.max(0, segment.startSec - context.beforeSec));
  return {
    seekSec,
    readSec: round6(segment.endSec + context.afterSec - seekSec),
    keepFromSec: round6(Math.max(0, segment.startSec - seekSec - early)),
    keepSec: round6(segment.endSec - segment.startSec),
  };
}

/** To the microsecond, as the frame times are listed and ffmpeg is told. */
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

const sec = (x: number) => x.toFixed(6);

/**
 * A remote worker reads its part of the input over HTTP: a dropped connection is taken up
 * again where it broke (a few tries, 4 s apart at most), and a stalled one ends the run after
 * 30 s instead of holding the segment's lease for nothing.
 */
const HTTP_INPUT = ["-reconnect", "1", "-reconnect_on_network_error", "1"].concat([
  "-reconnect_delay_max",
  "4",
  "-rw_timeout",
  "30000000",
]);

/** Input options that seek to the window (and give the decoder the plan's threads). */
function inputWindow(job: SegmentJob, w: SegmentWindow): string[] {
  const args = ["-ss", sec(w.seekSec), "-t", sec(w.readSec)];
  if (/^https?:\/\//i.test(job.input)) args.unshift(...HTTP_INPUT);
  const threads = job.plan.encode.threads;
  return threads ? ["-threads", String(threads), ...args] : args;
}

/**
 * The ffmpeg arguments (for `runFfmpegForMedia`) that restore the picture of `job.segment` to
 * an MP4 at `outputPath` (no sound; timestamps from 0). A stabilised plan needs
 * `buildSegmentDetectArgs` run first, over the same window. `context`: as `segmentWindow`.
 */
export function buildSegmentArgs(
  job: SegmentJob,
  outputPath: string,
  context?: SegmentContext,
): string[] {
  const w = segmentWindow(job, context);
  const pass = buildVideoPassArgs(job.plan, job.input, outputPath, { faststart: false });
  // The pass ends with its output path: output options go right before it.
  const keep = ["-ss", sec(w.keepFromSec), "-t", sec(w.keepSec)];
  return [...inputWindow(job, w), ...pass.slice(0, -1), ...keep, outputPath];
}

/**
 * `buildSegmentArgs` for a plan with Studio Max's motion average (`averagedDenoise`): the seek
 * goes to the front ffmpeg, the trim to the back one. The back's timeline counts from the
 * first frame after the seek at the picture's constant rate; after a seek 12 frames (or 2 s)
 * before the cut that frame lies on the seek within a tenth of a frame, well inside the
 * trim's quarter-frame margin (a variable-rate source would drift: the raw frames between the
 * two processes carry no times).
 */
export function buildSegmentAveragedArgs(
  job: SegmentJob,
  outputPath: string,
  context?: SegmentContext,
): AveragedPass {
  const w = segmentWindow(job, context);
  return buildAveragedPassArgs(job.plan, job.input, outputPath, {
    faststart: false,
    inputArgs: inputWindow(job, w),
    outputArgs: ["-ss", sec(w.keepFromSec), "-t", sec(w.keepSec)],
  });
}

/**
 * The stabiliser's detect pass over the segment's window (transforms beside `outputPath`, as
 * the segment's encode reads them): the same frames, so its frame numbers match.
 */
export function buildSegmentDetectArgs(job: SegmentJob, outputPath: string): string[] {
  const w = segmentWindow(job);
  return [...inputWindow(job, w), ...buildStabiliseDetectArgs(job.plan, job.input, outputPath)];
}
