/**
 * The filtergraphs the video probe (probe-video.ts) runs: one head per excerpt — each a source
 * seeking to its excerpt, one source read straight through and cut, or `-ss` inputs — with idet
 * in front, then the shake branch (vidstabdetect, writing its file) and the noise branch, whose
 * frame pairs are the graph's one output.
 */
import { availableParallelism } from "node:os";
import { hasFilterOption } from "../ffmpeg.js";
import { escapeFilterValue } from "./chain.js";
import { PAIR_EVERY } from "./frame-analysis.js";
import { printTimes } from "./landings.js";
import { keyframeShiftSec, type ReadPlan, secondsText } from "./sampling.js";
import type { Sample, SourceInfo } from "./types.js";

/** The chain heads that read the excerpts, one each. */
export interface Heads {
  /** One chain head per excerpt, each ready for `,filter`. */
  heads: string[];
  /** Filtergraph text that feeds the heads (a split), or "". */
  prelude: string;
  /** ffmpeg inputs the heads read (`[i:s]`); none when the graph opens the file itself. */
  inputs?: string[];
  /**
   * Whether the heads are independent sources (each opens the file): then they may run in
   * separate processes side by side (see ANALYSIS_PROCESSES, probe-video.ts).
   */
  split?: boolean;
}

/**
 * Whether the graph can open the file itself (`movie`): for MP4/MOV, whose demuxer seeks by
 * presentation time. ffmpeg's `-ss` moves a seek 3/23 s earlier on containers that seek by
 * decode time when frames are reordered (MPEG-TS/PS, AVI…); movie does not, and on a
 * B-frame MPEG-2 transport stream it landed on the keyframe a second after the excerpt. Those
 * keep `-ss` inputs (and a process started for them); MP4/MOV excerpts read the same frames
 * either way (checked byte for byte on the noise frames, and idet's counts).
 */
export const graphOpensFile = (source: SourceInfo) =>
  /(^|,)(mov|mp4)(,|$)/.test(source.container ?? "");

/** One `-ss` input per excerpt, as `seekingHeads` reads them, for the other containers. */
function seekingInputs(
  path: string,
  source: SourceInfo,
  samples: Sample[],
  planned: Sample[],
): Heads {
  const inputs: string[] = [];
  const heads = samples.map((s, i) => {
    const moved = s.startSec !== planned[i]?.startSec;
    if (moved) inputs.push("-noaccurate_seek", "-ss", secondsText(s.startSec + 0.001));
    else if (s.startSec > 0) inputs.push("-ss", secondsText(s.startSec));
    const threads = String(EXCERPT_DECODE_THREADS);
    inputs.push("-threads", threads, "-t", secondsText(s.seconds), "-noautorotate", "-i", path);
    return `[${i}:${source.videoStreamIndex}]null`;
  });
  return { heads, prelude: "", inputs };
}

/**
 * Decoder threads per excerpt. Frame threads cost a start-up and frames of delay on each
 * half-second excerpt, so all the cores (ffmpeg's choice) lost: 480p probe 0.60 s against
 * 0.40 s on one. Two win since the sound's analysis (ebur128) leaves the other core after
 * ≈ 0.2 s: the picture's then ends ≈ 50 ms sooner (0.30 s against 0.35 s before the encode,
 * 8 restores each), and this run is the critical path before the encode.
 */
const EXCERPT_DECODE_THREADS = Math.min(2, availableParallelism());

/** Whether movie can be told its decoder's threads (not in the 2018 fallback build). */
const movieHasDecThreads = () => hasFilterOption("movie", "dec_threads");

/** More digits than `sec`: start times are added to the container's own, not rounded. */
const sec6 = (x: number): string => String(Math.round(x * 1e6) / 1e6);

/**
 * A `movie` source: the video stream of `path`, seeked (like `-ss` before `-i`) to `seekSec`
 * from the file's start. Its frames keep the file's timestamps (the container's start time
 * included), and it never rotates them (like `-noautorotate`). `threads`: its decoder's, or
 * null for ffmpeg's choice (the 2018 fallback ffmpeg's movie has no such option and uses all).
 */
function movie(path: string, source: SourceInfo, seekSec: number, threads: number | null) {
  const options = [`filename=${escapeFilterValue(path)}`, `streams=${source.videoStreamIndex}`];
  if (seekSec > 0) options.push(`seek_point=${sec6(seekSec)}`);
  if (threads !== null && movieHasDecThreads()) options.push(`dec_threads=${threads}`);
  return `movie=${options.join(":")}`;
}

/**
 * One source per excerpt, each seeking to its excerpt: nothing outside the excerpts is decoded.
 * A seek lands on the keyframe at or before it. An excerpt `fromKeyframe` starts there (the
 * seek aims 1 ms past its planned start, so that rounding cannot land on the keyframe before);
 * the others start exactly (frames before them are decoded and dropped, as an accurate `-ss`
 * does). Each lasts its length from its first frame, as `-t` does.
 */
function seekingHeads(
  path: string,
  source: SourceInfo,
  planned: Sample[],
  fromKeyframe: (i: number) => boolean,
  processes: number,
): Heads {
  const t0 = source.startTimeSec ?? 0;
  // Several processes share the cores between them: one decoder thread each.
  const threads = processes > 1 ? 1 : EXCERPT_DECODE_THREADS;
  const heads = planned.map((s, i) => {
    if (fromKeyframe(i))
      return `${movie(path, source, s.startSec + 0.001, threads)},trim=duration=${secondsText(s.seconds)}`;
    const start = s.startSec > 0 ? `start=${sec6(t0 + s.startSec)}:` : "";
    return `${movie(path, source, s.startSec, threads)},trim=${start}duration=${secondsText(s.seconds)}`;
  });
  return { heads, prelude: "", split: true };
}

/** Where a run started before the landings are known notes, per excerpt, what it read. */
export interface GuessNotes {
  /** The times of the frames its seek gave, from the keyframe it landed on. */
  landed: string[];
  /** The times of the frames it kept (see guessingHeads). */
  kept: string[];
}

/**
 * The excerpts read before anyone knows where their seeks land (MP4/MOV), as `planReads` will
 * place them once that is known: each seeks 1 ms past its planned start, notes where it landed
 * (`notes.landed`) and then keeps every frame from that keyframe when it is at most
 * `keyframeShiftSec` before the excerpt, else only the frames from the planned start (as
 * `seekingHeads` reads an excerpt not moved: its lead is decoded and dropped), and notes what
 * it kept (`notes.kept`). So the one run is right on any GOP structure the plan seeks on
 * (readAsGuessed, sampling.ts), not only where every keyframe is near: the bench's 10 s clip
 * (x264's default GOP, keyframes 1.6–2.7 s apart) used to read its excerpts twice.
 */
function guessingHeads(
  path: string,
  source: SourceInfo,
  samples: Sample[],
  notes: GuessNotes,
  processes: number,
): Heads {
  const t0 = source.startTimeSec ?? 0;
  const threads = processes > 1 ? 1 : EXCERPT_DECODE_THREADS;
  const shift = sec6(keyframeShiftSec(samples));
  const note = (file: string | undefined) => (file === undefined ? "" : `,${printTimes(file)}`);
  const heads = samples.map((s, i) => {
    const length = `trim=duration=${secondsText(s.seconds)}`;
    const landed = note(notes.landed[i]);
    if (s.startSec <= 0) return `${movie(path, source, 0, threads)}${landed},${length}`;
    // start_t: the first frame's time (where the seek landed). A frame exactly at the planned
    // start is kept, as trim keeps it (its time in floating point may fall a hair short).
    const at = sec6(t0 + s.startSec);
    const keep = `select='max(lte(${at}-start_t,${shift}),gte(t,${at}-0.000001))'`;
    const seek = movie(path, source, s.startSec + 0.001, threads);
    return `${seek}${landed},${keep}${note(notes.kept[i])},${length}`;
  });
  return { heads, prelude: "", split: true };
}

/**
 * One source read straight through and cut into the excerpts (when GOPs are long): opened by
 * the graph (timestamps as in the file, so the cuts add its start time) or, where the graph
 * does not open the file, an input (timestamps from 0).
 */
function throughHeads(path: string, source: SourceInfo, samples: Sample[]): Heads {
  const own = graphOpensFile(source);
  const t0 = own ? (source.startTimeSec ?? 0) : 0;
  // cast: the plan always has at least one excerpt
  const last = samples.at(-1) as Sample;
  const outs = samples.map((_, i) => `[t${i}]`).join("");
  const length = secondsText(last.startSec + last.seconds);
  const read = own
    ? `${movie(path, source, 0, null)},trim=duration=${length}`
    : `[0:${source.videoStreamIndex}]null`;
  const prelude = `${read},split=${samples.length}${outs};`;
  // trim ends its branch after the excerpt, so concat moves on without buffering frames.
  const heads = samples.map(
    (s, i) => `[t${i}]trim=start=${sec6(t0 + s.startSec)}:end=${sec6(t0 + s.startSec + s.seconds)}`,
  );
  const inputs = own ? undefined : ["-t", length, "-noautorotate", "-i", path];
  return { heads, prelude, inputs };
}

/**
 * idet per excerpt (a fresh one each, so its frame history never carries one excerpt's
 * verdict into the next), then the excerpts back to back. `frames` > 0 trims every excerpt of
 * a file read in several to that many frames, so the shake analysis can cut them apart again.
 */
function frontGraph(inputs: Heads, frames: number, excerpts: number): string {
  const trim = frames > 0 && excerpts > 1 ? `,trim=end_frame=${frames}` : "";
  // idet's default intl_thres (1.04) read progressive testsrc2 as 82% TFF; at 1.2 it read it
  // progressive while interlaced testsrc2/mandelbrot/gradients/life all still read ≥98% TFF.
  const idet = "idet=intl_thres=1.2";
  if (inputs.heads.length === 1) return `${inputs.prelude}${inputs.heads[0]}${trim},${idet}`;
  const parts = inputs.heads.map((h, i) => `${h}${trim},${idet},setpts=PTS-STARTPTS[s${i}]`);
  const joined = inputs.heads.map((_, i) => `[s${i}]`).join("");
  return `${inputs.prelude}${parts.join(";")};${joined}concat=n=${inputs.heads.length}:v=1:a=0`;
}

/**
 * The heads that read the excerpts as `reads` places them; null: as `planReads` will place
 * them once the landings are known, noting what they read into `notes` (MP4/MOV only).
 */
export function excerptHeads(
  inputPath: string,
  source: SourceInfo,
  samples: Sample[],
  reads: ReadPlan | null,
  processes: number,
  notes: GuessNotes = { landed: [], kept: [] },
): Heads {
  if (reads === null) return guessingHeads(inputPath, source, samples, notes, processes);
  if (reads.mode === "through") return throughHeads(inputPath, source, samples);
  if (graphOpensFile(source)) {
    return seekingHeads(inputPath, source, samples, (i) => moved(reads, samples, i), processes);
  }
  return seekingInputs(inputPath, source, reads.samples, samples);
}

/** Whether `reads` moved excerpt `i` back onto the keyframe before it. */
const moved = (reads: ReadPlan, planned: Sample[], i: number) =>
  reads.samples[i]?.startSec !== planned[i]?.startSec;

/**
 * Every how many frames the noise estimate reads one: a small prime, so the frames fall on every
 * position of the stream's GOP whatever the excerpts' length. The grain an MPEG-2 capture keeps
 * differs by frame type (σ 2.0 in I, 3.8 in P, 5.0 in B frames): a step equal to the excerpt
 * length read only keyframes, and Standard measured a quarter of the noise Enhanced did.
 */
export const NOISE_FRAME_STEP = PAIR_EVERY;

/**
 * The noise branch: the top field of a few frames at full resolution (one field, so combing
 * never reads as noise), cropped to an even size for yuv420p.
 */
export function noiseFrames(source: SourceInfo): { width: number; height: number } {
  const width = source.width - (source.width % 2);
  const field = Math.floor(source.height / 2);
  return { width, height: field - (field % 2) };
}

/**
 * The noise branch's filters, for a graph whose first frame is frame `offset` of the excerpts
 * laid end to end: a graph reading later excerpts keeps counting where the one before left
 * off, so the frames measured are those one graph over all the excerpts would measure. Each
 * measured frame comes with the one after it: the temporal noise estimate compares the two.
 */
function noiseFilter(size: { width: number; height: number }, offset: number): string {
  const n = offset > 0 ? `n+${offset}` : "n";
  return `select='lt(mod(${n},${NOISE_FRAME_STEP}),2)',field=top,crop=${size.width}:${size.height}:0:0`;
}

/** What every process's graph of one pass shares. */
export interface GraphShape {
  /** Frames each excerpt is trimmed to (see frontGraph); 0: not trimmed. */
  frames: number;
  /** Excerpts in the pass (all the processes'). */
  excerpts: number;
  /** Height the shake branch runs at. */
  shakeHeight: number;
  /** Size of the noise branch's frames (noiseFrames). */
  noise: { width: number; height: number };
}

/**
 * One process's graph over its heads: idet in front, then the shake branch when `trfPath` is
 * given (it writes the file and ends in the graph) and the noise branch from frame `firstFrame`
 * (see noiseFilter), whose frame pairs are the one output, measured as they come.
 */
export function processGraph(
  heads: Heads,
  shape: GraphShape,
  firstFrame: number,
  trfPath: string | null,
): string {
  const front = frontGraph(heads, shape.frames, shape.excerpts);
  const branches = [
    trfPath === null ? null : `${shakeBranch(trfPath, shape.shakeHeight)},nullsink`,
    `${noiseFilter(shape.noise, firstFrame)},format=yuv420p[out0]`,
  ].filter((b): b is string => b !== null);
  const labels = branches.map((_, b) => `[b${b}]`).join("");
  let graph = `${front},format=yuv420p,split=${branches.length}${labels}`;
  branches.forEach((b, j) => {
    graph += `;[b${j}]${b}`;
  });
  return graph;
}

/** vidstabdetect on one field, small and denoised, writing its motions to `trfPath`. */
const shakeBranch = (trfPath: string, height: number) =>
  `field=top,scale=-2:${height},hqdn3d=4:3:6:4.5,vidstabdetect=result=${escapeFilterValue(trfPath)}:shakiness=5:accuracy=9`;
