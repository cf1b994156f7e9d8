/**
 * The video half of the probe: interlacing (idet) and camera shake (vidstabdetect, enhanced
 * qualities) in ffmpeg over a few excerpts, and pairs of raw frames streamed back for noise,
 * levels and the colour's slip (frame-analysis.ts).
 */
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { hasFilterOption } from "../ffmpeg.js";
import { parseVidstabMotions, shakeRatioOfChunks, sumIdetSummaries } from "./analysis.js";
import { escapeFilterValue } from "./chain.js";
import { createFrameAnalysis, PAIR_EVERY } from "./frame-analysis.js";
import { coldGraphRunner, type GraphRunner } from "./graph-process.js";
import { printTimes, readLandings, seekLandings } from "./landings.js";
import { matrixOf } from "./quality.js";
import { ffmpegFailure } from "./run.js";
import { planReads, type ReadPlan, secondsText, startsOnLandings } from "./sampling.js";
import type { Measurements, Sample, SourceInfo } from "./types.js";

/** Height the shake and levels analysis runs at: enough detail, a fraction of the cost. */
const ANALYSIS_HEIGHT = 360;

interface Heads {
  /** One chain head per excerpt, each ready for `,filter`. */
  heads: string[];
  /** Filtergraph text that feeds the heads (a split), or "". */
  prelude: string;
  /** ffmpeg inputs the heads read (`[i:s]`); none when the graph opens the file itself. */
  inputs?: string[];
  /**
   * Whether the heads are independent sources (each opens the file): then they may run in
   * separate processes side by side (see ANALYSIS_PROCESSES).
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
const graphOpensFile = (source: SourceInfo) => /(^|,)(mov|mp4)(,|$)/.test(source.container ?? "");

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

/**
 * One source read straight through and cut into the excerpts (when GOPs are long): opened by
 * the graph (timestamps as in the file, so the cuts add its start time) or, where the graph
 * does not open the file, an input (timestamps from 0).
 */
function throughHeads(path: string, source: SourceInfo, samples: Sample[]): Heads {
  const own = graphOpensFile(source);
  const t0 = own ? (source.startTimeSec ?? 0) : 0;
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
  const idet = "idet=intl_thres=1.2";
  if (inputs.heads.length === 1) return `${inputs.prelude}${inputs.heads[0]}${trim},${idet}`;
  const parts = inputs.heads.map((h, i) => `${h}${trim},${idet},setpts=PTS-STARTPTS[s${i}]`);
  const joined = inputs.heads.map((_, i) => `[s${i}]`).join("");
  return `${inputs.prelude}${parts.join(";")};${joined}concat=n=${inputs.heads.length}:v=1:a=0`;
}

/**
 * Every how many frames the noise estimate reads one: a small prime, so the frames fall on every
 * position of the stream's GOP whatever the excerpts' length. The grain an MPEG-2 capture keeps
 * differs by frame type (σ 2.0 in I, 3.8 in P, 5.0 in B frames): a step equal to the excerpt
 * length read only keyframes, and Standard measured a quarter of the noise Enhanced did.
 */
const NOISE_FRAME_STEP = PAIR_EVERY;

/**
 * The noise branch: the top field of a few frames at full resolution (one field, so combing
 * never reads as noise), cropped to an even size for yuv420p.
 */
function noiseFrames(source: SourceInfo): { width: number; height: number } {
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

/**
 * At most this many frame pairs are compared for the temporal noise estimate (≈ 30 ms of CPU a
 * pair at SD, between the probe and the encode); a long file's pairs are thinned evenly.
 */
const MAX_NOISE_PAIRS = 24;

/**
 * How many processes read `excerpts` excerpts side by side: each excerpt is its own source
 * (it opens the file and decodes from its keyframe), so they split across processes whole.
 * One process runs its filters on one thread while its decoder waits: on 2 cores, the bench's
 * 480p 10 s clip (3 excerpts of 0.5 s, spares started) took 134 ms in one process (two decoder
 * threads), 133 ms in two (2 + 1 excerpts) and 110 ms in three (12 runs each).
 */
export const ANALYSIS_PROCESSES = 3;

/** `items` cut into `count` runs in order, their lengths differing by at most one. */
function runsOf<T>(items: T[], count: number): T[][] {
  const runs: T[][] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const take = Math.floor((items.length - at) / (count - i));
    runs.push(items.slice(at, at + take));
    at += take;
  }
  return runs;
}

/**
 * Frames an excerpt gives: `frames` when trimmed to that many, else its length at the stream's
 * rate (exact for a constant rate; off by one at most on a variable one, which only moves
 * which frames the noise estimate reads).
 */
const framesOf = (sample: Sample, fps: number, frames: number) =>
  frames > 0 ? frames : Math.ceil(sample.seconds * fps - 1e-6);

export interface VideoAnalysisOptions {
  samples: Sample[];
  /** Measure levels and sharpness: only the enhanced qualities act on them. */
  levels: boolean;
  /** Measure camera shake (vidstabdetect): only where we would stabilise. */
  shake: boolean;
  signal?: AbortSignal;
  /** Runs the analysis graphs; default a fresh ffmpeg each time (an engine keeps spares). */
  runner?: GraphRunner;
  /** At most this many processes read the excerpts side by side; default ANALYSIS_PROCESSES. */
  processes?: number;
}

/** One process's share of the analysis: its graph and the file its shake branch writes. */
interface Part {
  graph: string;
  trfPath: string;
  /** Index of its first frame among all the excerpts' frames (see noiseFilter). */
  firstFrame: number;
}

type VideoMeasurements = Pick<
  Measurements,
  "interlace" | "shakeRatio" | "levels" | "noise" | "chromaShift" | "flicker" | "blur"
>;

/**
 * idet on full-resolution frames; vidstabdetect on a small, denoised copy; noise, levels and
 * the colour's slip on raw frame pairs streamed back (frame-analysis.ts).
 *
 * Where a seek to each excerpt lands decides how they are read (`planReads`). For MP4/MOV the
 * analysis does not ask first: it reads every excerpt from the keyframe its seek lands on (what
 * keyframes at most 2 s apart give), and each excerpt's first frame says where that was; when
 * the plan those landings make is what was read, the run is the one, else (long GOPs: reading
 * straight through, or decoding up to an excerpt) the right run follows. The other containers
 * ask ffprobe first (≈ 12 ms; their seeks differ, see graphOpensFile).
 */
export async function analyseVideo(
  inputPath: string,
  source: SourceInfo,
  dir: string,
  opts: VideoAnalysisOptions,
): Promise<VideoMeasurements & Pick<Measurements, "samples">> {
  const { samples, signal } = opts;
  if (samples.length <= 1) {
    const reads = planReads(samples, null);
    return { ...(await measureReads(inputPath, source, dir, opts, reads)).measured, samples };
  }
  if (graphOpensFile(source)) {
    const guess = await measureReads(inputPath, source, dir, opts, null);
    const reads = planReads(samples, guess.landings);
    if (startsOnLandings(reads, guess.landings)) {
      return { ...guess.measured, samples: reads.samples };
    }
    const measured = (await measureReads(inputPath, source, dir, opts, reads)).measured;
    return { ...measured, samples: reads.samples };
  }
  const reads = planReads(samples, await seekLandings(inputPath, source, samples, signal));
  const measured = (await measureReads(inputPath, source, dir, opts, reads)).measured;
  return { ...measured, samples: reads.samples };
}

/**
 * The analysis of the excerpts as `reads` places them; null: every excerpt from the keyframe a
 * seek to it lands on (MP4/MOV only).
 */
async function measureReads(
  inputPath: string,
  source: SourceInfo,
  dir: string,
  opts: VideoAnalysisOptions,
  reads: ReadPlan | null,
): Promise<{ measured: VideoMeasurements; landings: Array<number | null> | null }> {
  const { samples } = opts;
  const fps = source.fps ?? 25;
  const frames = opts.shake ? Math.max(1, Math.floor((samples[0]?.seconds ?? 0) * fps)) : 0;
  const processes = Math.max(1, Math.min(samples.length, opts.processes ?? ANALYSIS_PROCESSES));
  const placed = reads?.samples ?? samples;
  const heads =
    reads === null
      ? seekingHeads(inputPath, source, samples, (i) => (samples[i]?.startSec ?? 0) > 0, processes)
      : reads.mode === "through"
        ? throughHeads(inputPath, source, samples)
        : graphOpensFile(source)
          ? seekingHeads(inputPath, source, samples, (i) => moved(reads, samples, i), processes)
          : seekingInputs(inputPath, source, placed, samples);
  // One field per frame: combing would read as vertical jitter. Progressive input just loses
  // every other line, which motion search does not mind.
  const fieldHeight = Math.floor(source.height / 2);
  const height = Math.min(ANALYSIS_HEIGHT, fieldHeight - (fieldHeight % 2));
  const noise = noiseFrames(source);
  // Read from the keyframes, each excerpt notes where its frames start (the landings).
  const landingPaths =
    reads === null ? heads.heads.map((_, i) => join(dir, `landing-${i}.txt`)) : [];
  const marked = heads.heads.map((head, i) => {
    const file = landingPaths[i];
    return file ? `${head},${printTimes(file)}` : head;
  });
  // Independent excerpts run in processes side by side, each over a run of them; the rest in one.
  const excerpts = marked.map((head, i) => ({ head, sample: placed[i] as Sample }));
  const runs = heads.split ? runsOf(excerpts, processes) : [excerpts];
  let offset = 0;
  // A run made before the landings are known writes files of its own: the right run may follow.
  const name = reads === null ? "ahead-" : "";
  const parts: Part[] = runs.map((run, i) => {
    const trfPath = join(dir, `${name}shake-${i}.trf`);
    const motion = `field=top,scale=-2:${height},hqdn3d=4:3:6:4.5,vidstabdetect=result=${escapeFilterValue(trfPath)}:shakiness=5:accuracy=9`;
    // idet's default intl_thres (1.04) read progressive testsrc2 as 82% TFF; at 1.2 it read it
    // progressive while interlaced testsrc2/mandelbrot/gradients/life all still read ≥98% TFF.
    const own = { ...heads, heads: run.map((r) => r.head) };
    const front = frontGraph(own, frames, samples.length);
    // The shake branch writes its file and ends in the graph; the frame pairs are its one
    // output, measured as they come.
    const firstFrame = offset;
    const branches = [
      opts.shake ? `${motion},nullsink` : null,
      `${noiseFilter(noise, offset)},format=yuv420p[out0]`,
    ].filter((b): b is string => b !== null);
    offset += run.reduce((n, r) => n + framesOf(r.sample, fps, frames), 0);
    const labels = branches.map((_, b) => `[b${b}]`).join("");
    let graph = `${front},format=yuv420p,split=${branches.length}${labels}`;
    branches.forEach((b, j) => {
      graph += `;[b${j}]${b}`;
    });
    return { graph, trfPath, firstFrame };
  });
  // Levels and the colour's slip are read off the noise branch's frames (no more decoding); the
  // slip at every quality (a repair), levels and sharpness where they are acted on.
  const pairs = Math.ceil(offset / NOISE_FRAME_STEP);
  // Where each excerpt's frames start among all of them (frames counted as the graphs count).
  const excerptStarts: number[] = [];
  placed.reduce((at, sample) => {
    excerptStarts.push(at);
    return at + framesOf(sample, fps, frames);
  }, 0);
  const meter = createFrameAnalysis(noise.width, noise.height, {
    levels: opts.levels,
    slip: true,
    matrix: matrixOf(source),
    pairStep: Math.ceil(pairs / MAX_NOISE_PAIRS),
    excerptStarts,
  });
  const runner = opts.runner ?? coldGraphRunner;
  const done = await Promise.all(
    parts.map((part) =>
      runner.run(part.graph, {
        signal: opts.signal,
        onFrames: meter.stream(part.firstFrame),
        inputs: heads.inputs,
      }),
    ),
  );
  const failed = done.find((run) => run.code !== 0);
  if (failed) throw ffmpegFailure(failed.code, failed.stderr);
  const texts = (paths: string[]) =>
    Promise.all(paths.map((f) => readFile(f, "utf8").catch(() => ""))).then((t) => t.join("\n"));
  let shake: number | null = null;
  if (opts.shake) {
    const motions = parseVidstabMotions(await texts(parts.map((p) => p.trfPath)));
    shake = shakeRatioOfChunks(motions, frames, height, Math.max(2, Math.round(fps / 4)));
  }
  const interlace = sumIdetSummaries(done.map((run) => run.stderr).join("\n"));
  const landings = reads === null ? await readLandings(landingPaths, source) : null;
  const read = meter.result();
  const measured = { interlace, shakeRatio: shake, levels: read.levels, noise: read.noise };
  const more = { chromaShift: read.chromaShift, flicker: read.flicker, blur: read.blur };
  return { measured: { ...measured, ...more }, landings };
}

/** Whether `reads` moved excerpt `i` back onto the keyframe before it. */
const moved = (reads: ReadPlan, planned: Sample[], i: number) =>
  reads.samples[i]?.startSec !== planned[i]?.startSec;
