/**
 * The video half of the probe: interlacing (idet) and camera shake (vidstabdetect, enhanced
 * qualities) in ffmpeg over a few excerpts, and pairs of raw frames streamed back for noise,
 * levels and the colour's slip (frame-analysis.ts).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseVidstabMotions, shakeRatioOfChunks, sumIdetSummaries } from "./analysis.js";
import { createFrameAnalysis, type FrameAnalysis } from "./frame-analysis.js";
import { coldGraphRunner, type GraphRun, type GraphRunner } from "./graph-process.js";
import { readLandings, seekLandings } from "./landings.js";
import {
  excerptHeads,
  type GraphShape,
  type GuessNotes,
  graphOpensFile,
  NOISE_FRAME_STEP,
  noiseFrames,
  processGraph,
} from "./probe-graphs.js";
import { matrixOf } from "./quality.js";
import { ffmpegFailure } from "./run.js";
import { planReads, type ReadPlan, readAsGuessed } from "./sampling.js";
import type { Measurements, Sample, SourceInfo } from "./types.js";

/** Height the shake and levels analysis runs at: enough detail, a fraction of the cost. */
const ANALYSIS_HEIGHT = 360;

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
  /** Read whether the picture was enlarged from a coarser grid (grid.ts): Studio Max's. */
  grid?: boolean;
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
  /** Index of its first frame among all the excerpts' frames (see noiseFilter, probe-graphs.ts). */
  firstFrame: number;
}

type VideoMeasurements = Pick<
  Measurements,
  | "interlace"
  | "shakeRatio"
  | "levels"
  | "noise"
  | "chromaShift"
  | "flicker"
  | "blur"
  | "blockiness"
  | "grid"
>;

/**
 * idet on full-resolution frames; vidstabdetect on a small, denoised copy; noise, levels and
 * the colour's slip on raw frame pairs streamed back (frame-analysis.ts).
 *
 * Where a seek to each excerpt lands decides how they are read (`planReads`). For MP4/MOV the
 * analysis does not ask first: each excerpt notes where its seek landed and starts there or at
 * its planned start by `planReads`' own rule (guessingHeads, probe-graphs.ts), so the run is
 * the one whenever the plan seeks; else (long GOPs: reading straight through) the right run
 * follows. The other containers ask ffprobe first (≈ 12 ms; their seeks differ, see
 * graphOpensFile).
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
    const reads = planReads(samples, guess.landings ?? null);
    if (readAsGuessed(samples, reads, guess.landings, guess.starts)) {
      return { ...guess.measured, samples: reads.samples };
    }
    const measured = (await measureReads(inputPath, source, dir, opts, reads)).measured;
    return { ...measured, samples: reads.samples };
  }
  const reads = planReads(samples, await seekLandings(inputPath, source, samples, signal));
  const measured = (await measureReads(inputPath, source, dir, opts, reads)).measured;
  return { ...measured, samples: reads.samples };
}

/** How one pass reads the excerpts: where, in which processes, with which graphs. */
interface AnalysisPlan {
  fps: number;
  /** The excerpts where they are read (moved onto keyframes where the plan says so). */
  placed: Sample[];
  shape: GraphShape;
  /** ffmpeg inputs the graphs read (see Heads). */
  inputs: string[] | undefined;
  /** Where each excerpt notes what it read, when read before the landings are known. */
  notes: GuessNotes;
  parts: Part[];
  /** Frames of all the excerpts, as the graphs count them. */
  totalFrames: number;
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
): Promise<{ measured: VideoMeasurements } & Partial<Guessed>> {
  const plan = planAnalysis(inputPath, source, dir, opts, reads);
  const meter = frameMeter(plan, source, opts.levels, opts.grid ?? false);
  const done = await runParts(plan, meter, opts);
  const shake = opts.shake ? await shakeOf(plan) : null;
  const interlace = sumIdetSummaries(done.map((run) => run.stderr).join("\n"));
  const guessed = reads === null ? await guessedOf(plan.notes, source) : {};
  const read = meter.result();
  const measured = { interlace, shakeRatio: shake, levels: read.levels, noise: read.noise };
  const more = {
    chromaShift: read.chromaShift,
    flicker: read.flicker,
    blur: read.blur,
    blockiness: read.blockiness,
    ...(opts.grid ? { grid: read.grid } : {}),
  };
  return { measured: { ...measured, ...more }, ...guessed };
}

function planAnalysis(
  inputPath: string,
  source: SourceInfo,
  dir: string,
  opts: VideoAnalysisOptions,
  reads: ReadPlan | null,
): AnalysisPlan {
  const { samples } = opts;
  const fps = source.fps ?? 25;
  // Every excerpt trimmed to a whole number of frames at every quality, so the noise pairs are
  // counted alike with and without the shake branch (29.97 fps: 59 frames in 2 s, not 60).
  const frames = Math.max(1, Math.floor((samples[0]?.seconds ?? 0) * fps));
  const processes = Math.max(1, Math.min(samples.length, opts.processes ?? ANALYSIS_PROCESSES));
  const placed = reads?.samples ?? samples;
  // Read before the landings are known, each excerpt notes where its seek landed and what it kept.
  const notes: GuessNotes = {
    landed: reads === null ? samples.map((_, i) => join(dir, `landed-${i}.txt`)) : [],
    kept: reads === null ? samples.map((_, i) => join(dir, `kept-${i}.txt`)) : [],
  };
  const heads = excerptHeads(inputPath, source, samples, reads, processes, notes);
  // One field per frame: combing would read as vertical jitter. Progressive input just loses
  // every other line, which motion search does not mind.
  const fieldHeight = Math.floor(source.height / 2);
  const shape: GraphShape = {
    frames,
    excerpts: samples.length,
    shakeHeight: Math.min(ANALYSIS_HEIGHT, fieldHeight - (fieldHeight % 2)),
    noise: noiseFrames(source),
  };
  // Independent excerpts run in processes side by side, each over a run of them; the rest in one.
  // cast: heads and placed are made from the same excerpts, index for index
  const excerpts = heads.heads.map((head, i) => ({ head, sample: placed[i] as Sample }));
  const runs = heads.split ? runsOf(excerpts, processes) : [excerpts];
  let offset = 0;
  // A run made before the landings are known writes files of its own: the right run may follow.
  const name = reads === null ? "ahead-" : "";
  const parts: Part[] = runs.map((run, i) => {
    const trfPath = join(dir, `${name}shake-${i}.trf`);
    const firstFrame = offset;
    offset += run.reduce((n, r) => n + framesOf(r.sample, fps, frames), 0);
    const own = { ...heads, heads: run.map((r) => r.head) };
    const graph = processGraph(own, shape, firstFrame, opts.shake ? trfPath : null);
    return { graph, trfPath, firstFrame };
  });
  return { fps, placed, shape, inputs: heads.inputs, notes, parts, totalFrames: offset };
}

/**
 * The meter of the noise branch's frame pairs. Levels and the colour's slip are read off them
 * too (no more decoding): the slip and the blockiness at every quality (a repair; Standard
 * deblocks a blocked picture too), levels and sharpness where they are acted on.
 */
function frameMeter(
  plan: AnalysisPlan,
  source: SourceInfo,
  levels: boolean,
  grid: boolean,
): FrameAnalysis {
  const pairs = Math.ceil(plan.totalFrames / NOISE_FRAME_STEP);
  // Where each excerpt's frames start among all of them (frames counted as the graphs count).
  const excerptStarts: number[] = [];
  plan.placed.reduce((at, sample) => {
    excerptStarts.push(at);
    return at + framesOf(sample, plan.fps, plan.shape.frames);
  }, 0);
  return createFrameAnalysis(plan.shape.noise.width, plan.shape.noise.height, {
    levels,
    grid,
    slip: true,
    matrix: matrixOf(source),
    pairStep: Math.ceil(pairs / MAX_NOISE_PAIRS),
    excerptStarts,
  });
}

/** Runs the processes' graphs side by side, their frames into `meter`; throws if one failed. */
async function runParts(
  plan: AnalysisPlan,
  meter: FrameAnalysis,
  opts: VideoAnalysisOptions,
): Promise<GraphRun[]> {
  const runner = opts.runner ?? coldGraphRunner;
  const done = await Promise.all(
    plan.parts.map((part) =>
      runner.run(part.graph, {
        signal: opts.signal,
        onFrames: meter.stream(part.firstFrame),
        inputs: plan.inputs,
      }),
    ),
  );
  const failed = done.find((run) => run.code !== 0);
  if (failed) throw ffmpegFailure(failed.code, failed.stderr);
  return done;
}

/** What a run started before the landings were known read, excerpt by excerpt (file seconds). */
interface Guessed {
  /** Where each excerpt's seek landed; null for one that gave no frame. */
  landings: Array<number | null>;
  /** Where each excerpt's kept frames start; null likewise. */
  starts: Array<number | null>;
}

async function guessedOf(notes: GuessNotes, source: SourceInfo): Promise<Guessed> {
  const [landings, starts] = await Promise.all([
    readLandings(notes.landed, source),
    readLandings(notes.kept, source),
  ]);
  return { landings, starts };
}

/** The camera's shake, from the motions the shake branches wrote. */
async function shakeOf({ parts, shape, fps }: AnalysisPlan): Promise<number | null> {
  const texts = await Promise.all(parts.map((p) => readFile(p.trfPath, "utf8").catch(() => "")));
  const motions = parseVidstabMotions(texts.join("\n"));
  return shakeRatioOfChunks(
    motions,
    shape.frames,
    shape.shakeHeight,
    Math.max(2, Math.round(fps / 4)),
  );
}
