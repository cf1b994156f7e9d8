/**
 * Where a long video is cut into segments that different workers restore side by side: every
 * frame's time and which frames are keyframes (one ffprobe packet listing, nothing decoded),
 * then the cut plan (pure): about every `segmentSec`, on a keyframe near there. Each segment is
 * a run of whole source frames, so an interlaced frame's two fields never part, and the cuts
 * are where the restored pieces are joined (join.ts).
 */
import { at, last } from "../../domain/checked-index.js";
import { runFfprobe } from "../ffmpeg.js";
import { CORRUPT_MESSAGE, errorTail, MediaError } from "./errors.js";
import type { SourceInfo } from "./types.js";

/**
 * The default segment length: measured (docs/capacity.md) so that a segment's fixed costs (the
 * process start, the seek and the look-back decoded before its first frame, its last frames'
 * look-ahead) stay under 2 % of its work at every quality, while a 2-hour tape still makes 60
 * work units for a fleet to share.
 */
export const DEFAULT_SEGMENT_SEC = 120;

/** Every video frame's time and the keyframes among them, from one packet listing. */
export interface FrameList {
  /** Presentation times, seconds from the file's start (ffmpeg's `-ss` zero), ascending. */
  times: number[];
  /** Indexes into `times` of the frames a decoder can start on. */
  keyframes: number[];
}

/** One segment: the source frames whose times lie in [startSec, endSec). */
export interface SegmentSpec {
  /** 0-based position in the cut plan (the join's order). */
  index: number;
  /** Its first frame's time, seconds from the file's start. */
  startSec: number;
  /** The next segment's first frame's time; for the last, where the picture ends. */
  endSec: number;
  /** Source frames in the segment. */
  frames: number;
  /** Whether the first frame is a keyframe (a cut between keyframes is decoded from the one before). */
  onKeyframe: boolean;
  /** The last segment: its picture ends where the chain ends it (a filter may hold back its last frames). */
  last: boolean;
}

/** Where a video is cut: plain data (JSON round-trips), stored beside the job's plan. */
export interface CutPlan {
  version: 1;
  /** The length asked for. */
  segmentSec: number;
  /** The source's frame interval (the median gap between frames), seconds. */
  frameSec: number;
  /** Where the picture starts (its first frame) and ends (after its last), from the file's start. */
  startSec: number;
  endSec: number;
  /** Source frames in all. */
  frames: number;
  segments: SegmentSpec[];
  /** One line per decision, saying why (a segment off a keyframe, a video kept in one piece). */
  notes: string[];
}

/** What the packet listing prints per line: `pts_time,dts_time,flags` (flags K: key, D: discard). */
export function parseFrameList(csv: string, fileStartSec: number): FrameList {
  const frames: Array<{ t: number; key: boolean }> = [];
  for (const line of csv.split("\n")) {
    const [pts, dts, flags] = line.split(",");
    if (flags === undefined || flags.includes("D")) continue;
    // AVI and some raw streams leave pts out; their frames are in display order by dts.
    const t = Number(pts !== "N/A" && pts !== "" ? pts : dts);
    if (!Number.isFinite(t)) continue;
    frames.push({ t: Math.round((t - fileStartSec) * 1e6) / 1e6, key: flags.includes("K") });
  }
  frames.sort((a, b) => a.t - b.t);
  const times: number[] = [];
  const keyframes: number[] = [];
  for (const f of frames) {
    // A repeated timestamp is one frame to the muxer; keep the first (a keyframe wins).
    if (times.length > 0 && f.t <= last(times)) {
      if (f.key && f.t === times.at(-1) && keyframes.at(-1) !== times.length - 1) {
        keyframes.push(times.length - 1);
      }
      continue;
    }
    if (f.key) keyframes.push(times.length);
    times.push(f.t);
  }
  return { times, keyframes };
}

/**
 * Every frame of the probed video stream, by a packet listing (demuxed, not decoded: a few
 * seconds for a 2-hour tape). Throws MediaError when the stream holds no frame with a time.
 */
export async function listFrames(
  inputPath: string,
  source: Pick<SourceInfo, "videoStreamIndex" | "startTimeSec">,
  signal?: AbortSignal,
): Promise<FrameList> {
  const args = ["-v", "error", "-select_streams", String(source.videoStreamIndex)];
  args.push("-show_entries", "packet=pts_time,dts_time,flags", "-of", "csv=p=0", inputPath);
  // ≈ 30 bytes a frame: a 4-hour 60 fps video prints ≈ 26 MB.
  const run = await runFfprobe(args, { signal, maxCaptureBytes: 256 * 1024 * 1024 });
  if (signal?.aborted) throw signal.reason;
  const list = run.code === 0 ? parseFrameList(run.stdout, source.startTimeSec ?? 0) : null;
  if (!list || list.times.length === 0) {
    throw new MediaError("corrupt", CORRUPT_MESSAGE, errorTail(run.stderr));
  }
  return list;
}

/** The median gap between consecutive frames (robust to a few dropped or doubled frames). */
export function frameInterval(times: number[]): number {
  const gaps: number[] = [];
  for (let i = 1; i < times.length; i++) gaps.push(at(times, i) - at(times, i - 1));
  if (gaps.length === 0) return 1 / 25;
  gaps.sort((a, b) => a - b);
  return round6(at(gaps, gaps.length >> 1));
}

/** Index of the value in the ascending `xs` nearest to `x` (ties: the earlier). */
function nearest(xs: number[], x: number, lo = 0, hi = xs.length - 1): number {
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (at(xs, mid) <= x) lo = mid;
    else hi = mid;
  }
  return Math.abs(at(xs, hi) - x) < Math.abs(at(xs, lo) - x) ? hi : lo;
}

export interface CutOptions {
  /** The length asked for (RESTORE_SEGMENT_SEC); a video shorter than two stays one piece. */
  segmentSec: number;
  /**
   * How far from its target a cut may move to land on a keyframe; default a quarter of
   * `segmentSec`. Beyond it the cut is made between keyframes.
   */
  toleranceSec?: number;
  /** Why the video must stay one piece whatever its length (e.g. a stabilised plan). */
  onePieceBecause?: string;
}

/**
 * Cuts `frames` into segments of about `segmentSec`: n = round(length / segmentSec) equal
 * parts, each cut moved to the nearest keyframe within the tolerance, else made at the frame
 * nearest its target (sparse keyframes: the segment is then decoded from the keyframe before,
 * which costs decode time only). A segment is never shorter than half of `segmentSec`.
 */
export function planCuts(frames: FrameList, opts: CutOptions): CutPlan {
  const { segmentSec } = opts;
  if (!Number.isFinite(segmentSec) || segmentSec < 1) {
    throw new RangeError(`segmentSec must be at least 1 s (got ${segmentSec})`);
  }
  const { times, keyframes } = frames;
  if (times.length === 0) throw new RangeError("planCuts needs at least one frame");
  const frameSec = frameInterval(times);
  const startSec = at(times, 0);
  const endSec = round6(last(times) + frameSec);
  const lengthSec = endSec - startSec;
  const notes: string[] = [];
  const count = Math.round(lengthSec / segmentSec);
  let firsts = [0];
  if (opts.onePieceBecause) {
    notes.push(`one piece: ${opts.onePieceBecause}`);
  } else if (lengthSec < 2 * segmentSec) {
    notes.push(`one piece: ${fmt(lengthSec)} s is shorter than two segments of ${segmentSec} s`);
  } else {
    firsts = chooseCuts(frames, { startSec, lengthSec, count, opts, notes });
  }
  const keySet = new Set(keyframes);
  const segments = firsts.map((first, index): SegmentSpec => {
    const next = firsts[index + 1];
    return {
      index,
      startSec: at(times, first),
      endSec: next === undefined ? endSec : at(times, next),
      frames: (next ?? times.length) - first,
      onKeyframe: keySet.has(first),
      last: next === undefined,
    };
  });
  return {
    version: 1,
    segmentSec,
    frameSec,
    startSec,
    endSec,
    frames: times.length,
    segments,
    notes,
  };
}

/** The first frame of every segment: index 0, then one cut per target. */
function chooseCuts(
  frames: FrameList,
  c: { startSec: number; lengthSec: number; count: number; opts: CutOptions; notes: string[] },
): number[] {
  const { times, keyframes } = frames;
  const { segmentSec } = c.opts;
  const tolerance = c.opts.toleranceSec ?? segmentSec / 4;
  const keyTimes = keyframes.map((i) => at(times, i));
  const minGap = segmentSec / 2;
  const firsts = [0];
  for (let k = 1; k < c.count; k++) {
    const target = c.startSec + (k * c.lengthSec) / c.count;
    const previous = at(times, last(firsts));
    const fits = (t: number) =>
      Math.abs(t - target) <= tolerance &&
      t - previous >= minGap &&
      c.startSec + c.lengthSec - t >= minGap;
    const key = keyTimes.length > 0 ? nearest(keyTimes, target) : -1;
    if (key >= 0 && fits(at(keyTimes, key))) {
      firsts.push(at(keyframes, key));
      continue;
    }
    const frame = nearest(times, target);
    if (!fits(at(times, frame))) continue;
    c.notes.push(
      `segment ${firsts.length}: no keyframe within ${fmt(tolerance)} s of ${fmt(target)} s; cut between keyframes at ${fmt(at(times, frame))} s`,
    );
    firsts.push(frame);
  }
  return firsts;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const fmt = (x: number) => String(Math.round(x * 1000) / 1000);
