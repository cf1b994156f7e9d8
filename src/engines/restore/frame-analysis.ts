/**
 * What the probe reads off its raw frames, frame by frame as they arrive: the noise (in the
 * difference of consecutive frames after motion compensation, temporal-noise.ts; and Immerkær's
 * spatial estimate, noise.ts, for the notes), the levels (levels.ts) and the colour's slip
 * (chroma-shift.ts). The probe sends pairs of consecutive frames (one field each, every 5th
 * frame and the one after it); levels, slip and the spatial estimate read the first of each.
 * Pure: bytes in, readings out.
 */
import { type BlockinessReading, createBlockinessMeter } from "./blockiness.js";
import { createBlurMeter } from "./blur.js";
import { createChromaShiftMeter } from "./chroma-shift.js";
import { createGridMeter, type GridReading } from "./grid.js";
import { createLevelsMeter, type LevelsReading } from "./levels.js";
import { planeNoise } from "./noise.js";
import { pairFlicker, quietBlockSigma } from "./temporal-noise.js";

/** Noise σ in 8-bit codes per plane (chroma: the mean of U and V), and how it was read. */
export interface NoiseReading {
  /** Temporal (motion-compensated) σ: what the denoise decision uses. */
  y: number;
  c: number;
  /** Immerkær's spatial σ at the quietest blocks: texture raises it (kept for the notes). */
  spatialY: number;
  spatialC: number;
  /** Frame pairs the temporal σ was read from. */
  pairs: number;
}

export interface FrameReadings {
  noise: NoiseReading | null;
  levels: LevelsReading | null;
  /** Chroma pixels the colour lies right of the picture (see chroma-shift.ts); null: not read. */
  chromaShift: number | null;
  /**
   * How much the brightness jumps between consecutive frames where the picture lines up: the
   * median over frame pairs of |pairFlicker|, 8-bit codes; null before a pair.
   */
  flicker: number | null;
  /** σ (pixels) of the sharpest edges' blur (blur.ts); null: not read or too few edges. */
  blur: number | null;
  /** How blocky the picture is on the codec's 8-px grid (blockiness.ts); null: not read. */
  blockiness: BlockinessReading | null;
  /** Whether the rows sit on a coarser grid they were enlarged from (grid.ts); null: not read. */
  grid: GridReading | null;
}

/**
 * The best-compensated 3 % of the blocks stand for a pair's noise: grain is everywhere alike
 * (grain σ 4 under MPEG-2 read 2.01 / 2.08 / 2.16 at the 1st / 3rd / 10th percentile), while
 * detail a motion search cannot match exactly (fine texture, a detailed picture's coding noise)
 * leaves a few flat blocks quiet and raises the rest (clean forest: 1.29 / 1.59 / 2.26). The
 * 3rd percentile tells the two apart; the 1st rests on too few blocks (8 of an SD field's 800).
 */
const QUIET_SHARE = 0.03;

export interface FrameAnalysis {
  /**
   * A push for one process's frames, laid end to end (chunks may split a frame anywhere).
   * `firstFrame`: the index, among all the excerpts' frames, of the first frame its graph reads
   * (frames are sent in pairs from every 5th: a stream that starts on a pair's second frame
   * drops it, and its pairs are counted from where they fall overall, so thinning them picks
   * the same pairs however the excerpts are split over processes).
   */
  stream(firstFrame?: number): (chunk: Uint8Array) => void;
  result(): FrameReadings;
}

/** The probe sends every PAIR_EVERY-th frame with the one after it (probe-video.ts). */
export const PAIR_EVERY = 5;

// cast: the middle index of a non-empty list (callers pass at least one reading)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const round2 = (x: number) => Math.round(x * 100) / 100;

interface FrameAnalysisOptions {
  levels: boolean;
  /** Read the grid an enlarged picture keeps (grid.ts): only Studio Max acts on it. */
  grid?: boolean;
  slip: boolean;
  matrix?: "bt601" | "bt709";
  /**
   * The temporal σ is read on every `pairStep`-th pair of each stream (it costs ≈ 30 ms of CPU a
   * pair at SD; the caller bounds the pairs of a long file with it).
   */
  pairStep?: number;
  /**
   * Indexes (among all the excerpts' frames) where an excerpt starts: a pair whose second frame
   * starts an excerpt spans a cut between two moments of the file, and is not compared.
   */
  excerptStarts?: number[];
}

/** The per-frame figures gathered so far; result() sums them up. */
interface Samples {
  spatialY: number[];
  spatialC: number[];
  temporalY: number[];
  temporalC: number[];
  flickers: number[];
}

/** The meters that read whole frames (absent when not asked for). */
interface Meters {
  levels: ReturnType<typeof createLevelsMeter> | null;
  slip: ReturnType<typeof createChromaShiftMeter> | null;
  blur: ReturnType<typeof createBlurMeter> | null;
  blockiness: ReturnType<typeof createBlockinessMeter> | null;
  grid: ReturnType<typeof createGridMeter> | null;
}

/** What a pair's frames are read for: the first one alone, then the two together. */
interface PairReaders {
  first(frame: Uint8Array): void;
  second(a: Uint8Array, b: Uint8Array): void;
}

/** Which pairs a stream compares: every `step`-th, none across an excerpt's start. */
interface Pairing {
  step: number;
  cuts: ReadonlySet<number>;
}

/** Reads a probe's raw frames (8-bit 4:2:0, `width`×`height`) as they arrive; see FrameAnalysis. */
export function createFrameAnalysis(
  width: number,
  height: number,
  opts: FrameAnalysisOptions,
): FrameAnalysis {
  const { frameBytes } = frameLayout(width, height);
  const meters: Meters = {
    levels: opts.levels ? createLevelsMeter(width, height, opts.matrix) : null,
    slip: opts.slip ? createChromaShiftMeter(width, height) : null,
    blur: opts.levels ? createBlurMeter(width, height) : null,
    // At every quality: Standard deblocks a picture read blocked too (blocks-plan.ts decideDeblock).
    blockiness: createBlockinessMeter(width, height),
    grid: opts.grid ? createGridMeter(width, height) : null,
  };
  const samples: Samples = {
    spatialY: [],
    spatialC: [],
    temporalY: [],
    temporalC: [],
    flickers: [],
  };
  const readers = pairReaders(width, height, meters, samples);
  const pairing: Pairing = {
    step: Math.max(1, opts.pairStep ?? 1),
    cuts: new Set(opts.excerptStarts ?? []),
  };
  return {
    stream: (firstFrame = 0) => pairStream(frameBytes, firstFrame, pairing, readers),
    result: () => readingsOf(samples, meters),
  };
}

/** Where a frame's planes lie in its bytes (8-bit 4:2:0: Y, then U, then V). */
function frameLayout(width: number, height: number) {
  const cw = width >> 1;
  const ch = height >> 1;
  const lumaBytes = width * height;
  const chromaBytes = cw * ch;
  const frameBytes = lumaBytes + 2 * chromaBytes;
  const planes = (f: Uint8Array) => ({
    y: f.subarray(0, lumaBytes),
    u: f.subarray(lumaBytes, lumaBytes + chromaBytes),
    v: f.subarray(lumaBytes + chromaBytes, frameBytes),
  });
  return { cw, ch, frameBytes, planes };
}

/** The first frame of a pair feeds the meters and the spatial σ; the pair, the temporal σ. */
function pairReaders(width: number, height: number, meters: Meters, samples: Samples): PairReaders {
  const { cw, ch, planes } = frameLayout(width, height);
  return {
    first(frame) {
      const p = planes(frame);
      samples.spatialY.push(planeNoise(p.y, width, height));
      samples.spatialC.push((planeNoise(p.u, cw, ch) + planeNoise(p.v, cw, ch)) / 2);
      meters.levels?.measure(frame);
      meters.slip?.measure(frame);
      meters.blur?.measure(p.y);
      meters.blockiness?.measure(p.y);
      meters.grid?.measure(p.y);
    },
    second(a, b) {
      const pa = planes(a);
      const pb = planes(b);
      samples.temporalY.push(quietBlockSigma(pa.y, pb.y, width, height, QUIET_SHARE));
      samples.flickers.push(Math.abs(pairFlicker(pa.y, pb.y, width, height)));
      const u = quietBlockSigma(pa.u, pb.u, cw, ch, QUIET_SHARE);
      const v = quietBlockSigma(pa.v, pb.v, cw, ch, QUIET_SHARE);
      samples.temporalC.push((u + v) / 2);
    },
  };
}

/**
 * A push that cuts one process's bytes into frames and hands each pair's frames to `readers`
 * (see FrameAnalysis.stream for `firstFrame`).
 */
function pairStream(
  frameBytes: number,
  firstFrame: number,
  { step, cuts }: Pairing,
  readers: PairReaders,
): (chunk: Uint8Array) => void {
  const frame = new Uint8Array(frameBytes);
  const held = new Uint8Array(frameBytes);
  let filled = 0;
  // Selected frames are n ≡ 0, 1 (mod PAIR_EVERY) overall: a start at ≡ 1 is a pair's tail.
  const phase = firstFrame % PAIR_EVERY;
  let index = phase === 1 ? -1 : 0;
  const firstPair = Math.ceil(firstFrame / PAIR_EVERY);
  const tailOf = (pair: number) => pair * PAIR_EVERY + 1;
  return (chunk) => {
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(frameBytes - filled, chunk.length - at);
      frame.set(chunk.subarray(at, at + take), filled);
      filled += take;
      at += take;
      if (filled < frameBytes) break;
      filled = 0;
      if (index < 0) {
        index++;
        continue;
      }
      const pair = firstPair + (index >> 1);
      if (index % 2 === 0) {
        readers.first(frame);
        if (pair % step === 0) held.set(frame);
      } else if (pair % step === 0 && !cuts.has(tailOf(pair))) readers.second(held, frame);
      index++;
    }
  };
}

function readingsOf(samples: Samples, meters: Meters): FrameReadings {
  const { flickers } = samples;
  // A grainy picture's levels are read from wider means (levels.ts).
  const noise = noiseOf(samples);
  return {
    noise,
    levels: meters.levels?.result(noise) ?? null,
    chromaShift: meters.slip?.result() ?? null,
    flicker: flickers.length ? round2(median(flickers)) : null,
    blur: meters.blur?.result() ?? null,
    blockiness: meters.blockiness?.result() ?? null,
    grid: meters.grid?.result() ?? null,
  };
}

/** The medians of the σ samples; null before a pair's temporal and a frame's spatial σ. */
function noiseOf(samples: Samples): NoiseReading | null {
  const valid = (xs: number[]) => xs.filter(Number.isFinite);
  const ty = valid(samples.temporalY);
  const sy = valid(samples.spatialY);
  if (ty.length === 0 || sy.length === 0) return null;
  const tc = valid(samples.temporalC);
  // A chroma plane too small for the motion search (a thumbnail): its spatial σ stands in.
  const sc = valid(samples.spatialC);
  return {
    y: round2(median(ty)),
    c: round2(tc.length ? median(tc) : sc.length ? median(sc) : 0),
    spatialY: round2(median(sy)),
    spatialC: round2(sc.length ? median(sc) : 0),
    pairs: ty.length,
  };
}
