/**
 * Plain-data types of the restoration engine. A `RestorePlan` is serialisable (JSON round-trips)
 * so a worker can log it, store it beside the job, and a benchmark can rebuild the exact chain.
 */

export type RestoreQuality = "faithful" | "enhanced" | "enhanced_max";

/**
 * What the customer says of the tape's levels (domain/fade.ts; enhanced qualities only):
 * `auto` lets the analysis decide whether the picture is faded (tone.ts).
 */
export type { FadeHint } from "../../domain/fade.js";

/** Clockwise rotation that makes the coded picture upright. */
export type Rotation = 0 | 90 | 180 | 270;

/** What ffprobe says about the file (headers only, nothing decoded). */
export interface SourceInfo {
  videoCodec: string;
  /** Absolute stream indexes, so `-map 0:N` picks the stream we probed (not cover art). */
  videoStreamIndex: number;
  /** Coded size, before rotation. */
  width: number;
  height: number;
  sarNum: number;
  sarDen: number;
  /** Frames per second (for interlaced video: frames, not fields); null when unknown. */
  fps: number | null;
  rotationCw: Rotation;
  /** Field order declared by the container/codec; idet may overrule it. */
  fieldOrder: "tff" | "bff" | "progressive" | "unknown";
  /** Declared YCbCr matrix: "bt601", "bt709", or null when untagged. */
  colorMatrix: "bt601" | "bt709" | null;
  audio: { streamIndex: number; codec: string; sampleRate: number; channels: number } | null;
  /** What the header claims; not trusted for billing or progress (see measureDurationSec). */
  headerDurationSec: number | null;
  /** The container's first timestamp (MPEG-TS rarely starts at 0); seeks are relative to it. */
  startTimeSec?: number;
  /** ffprobe's name of the container (e.g. "mov,mp4,m4a,3gp,3g2,mj2", "mpegts"). */
  container?: string;
}

/** One excerpt of the file the probe analysed: `seconds` of media from `startSec`. */
export interface Sample {
  startSec: number;
  seconds: number;
}

/** idet's multi-frame counts over the analysed window. */
export interface InterlaceCounts {
  tff: number;
  bff: number;
  progressive: number;
  undetermined: number;
}

/**
 * Loudness of the input as loudnorm's linear pass takes it (LUFS / dBTP / LU), measured by
 * ebur128 (see parseEbur128); `targetOffset` only tunes loudnorm's dynamic mode.
 */
export interface LoudnessMeasurement {
  inputI: number;
  inputTp: number;
  inputLra: number;
  inputThresh: number;
  targetOffset: number;
}

export interface Measurements {
  /** Seconds of video the analysis decoded, summed over its excerpts (`samples`). */
  windowSec: number;
  /** Where the video analysis looked (evenly spaced excerpts, or the whole file). */
  samples?: Sample[];
  /** Where the hum analysis listened (the same spots, at least 2 s each). */
  humSamples?: Sample[];
  interlace: InterlaceCounts | null;
  /** RMS camera jitter around a smooth path, as a fraction of picture height; null if unmeasured. */
  shakeRatio: number | null;
  /**
   * The picture's levels (levels.ts): luma percentiles, the dark channel (darkest of R, G, B)
   * and the bright one, and how colourful it is; null when unmeasured (Standard).
   */
  levels: {
    yLow: number;
    yMid: number;
    yHigh: number;
    dark: number;
    bright: number;
    sat: number;
    /** True when read from a grainy picture's wide means (levels.ts): a partial stretch. */
    wide?: boolean;
  } | null;
  /**
   * Noise σ in 8-bit codes (luma, chroma) at full resolution, one field, in the difference of
   * consecutive frames after motion compensation (temporal-noise.ts); `spatialY`/`spatialC`:
   * Immerkær's estimate at the quietest blocks, which texture raises; null if unmeasured.
   */
  noise?: { y: number; c: number; spatialY?: number; spatialC?: number; pairs?: number } | null;
  /**
   * How far the colour lies right of the picture, in chroma pixels of a yuv420p frame (negative:
   * left); 0 in line; null or absent if unmeasured (only the enhanced qualities measure it).
   */
  chromaShift?: number | null;
  /**
   * How much the brightness jumps between consecutive frames where the picture lines up (median
   * over the probe's frame pairs, 8-bit codes); null or absent if unmeasured.
   */
  flicker?: number | null;
  /**
   * σ in pixels of the blur on the picture's sharpest edges (blur.ts), enhanced qualities only;
   * null or absent if unmeasured or the picture has too few strong edges.
   */
  blur?: number | null;
  /**
   * How blocky the picture is on the source's 8-px grid (blockiness.ts), enhanced qualities
   * only; null or absent if unmeasured or the picture has no flat places to read it at.
   */
  blockiness?: { ratio: number; flatShare: number } | null;
  /**
   * Whether the rows sit on a coarser grid the picture was enlarged from (grid.ts): the factor
   * that fits best and its phase contrast (≪ 1 on a grid, ~1 on none). Studio Max only; null or
   * absent if unmeasured.
   */
  grid?: { factor: number; contrast: number } | null;
  /**
   * Mean quantiser scale of an MPEG-1/2 source's I frames over the excerpts (quantiser.ts),
   * enhanced qualities only; null or absent for other codecs or if unmeasured.
   */
  quantiser?: number | null;
  /** How far mains-hum harmonics stand above their neighbourhood, dB; null without audio. */
  hum: { db50: number; db60: number } | null;
  loudness: LoudnessMeasurement | null;
}

/**
 * The deblock (VideoPlan.deblock): the weak one, pp7, or the weak one on the luma beside a DCT
 * threshold on the colour planes alone: fspp (`fspp-colour`: Enhanced's on an enlarged picture
 * hqdn3d takes grain out of, for the colour grain it leaves; blocks-plan.ts decideDeblock) or
 * pp7 (`pp7-colour`: Enhanced's on an enlarged textured blocked picture until 2026-11-30, now
 * kept at its size; no longer chosen, kept so a plan by hand can: docs/restore.md "Blocking").
 */
export type Deblock =
  | { filter?: "deblock"; alpha: number; beta: number }
  | { filter: "pp7"; qp: number }
  | { filter: "pp7-colour"; alpha: number; beta: number; qp: number }
  | { filter: "fspp-colour"; alpha: number; beta: number; qp: number; strength: number };

export interface Hqdn3d {
  filter: "hqdn3d";
  lumaSpatial: number;
  chromaSpatial: number;
  lumaTemporal: number;
  chromaTemporal: number;
}

/** Non-local means (Studio Max on fine grain): `strength` ≈ σ, patch and search sizes in px. */
export interface NlMeans {
  filter: "nlmeans";
  strength: number;
  patch: number;
  research: number;
  /**
   * The colour planes first averaged over `frames` frames where they differ by little
   * (ffmpeg's atadenoise, thresholds `a` / `b` as fractions of the range; denoise.ts
   * `DENOISE.colourTemporal`); absent or null: none.
   */
  colourTemporal?: { frames: number; a: number; b: number } | null;
  /**
   * Studio Max on coarse grain and tape (DENOISE.averageWhere): the luma averaged along the
   * motion over five frames (weights exp(−msd / threshold²), motion-average.ts) between the
   * non-local means, run as a guide, and non-local means again at `final` × `strength` on the
   * average (chain-average.ts); absent or null: none.
   */
  motionAverage?: { threshold: number; final: number } | null;
}

export type Denoise = Hqdn3d | NlMeans;

export interface VideoPlan {
  deinterlace: { filter: "bwdif" | "yadif"; parity: "tff" | "bff"; sendField: boolean } | null;
  rotationCw: Rotation;
  /** Two-pass vidstab; only when shake was measured. */
  stabilise: { smoothing: number } | null;
  deflicker: boolean;
  /** Tape dropouts repaired from the frames either side (dropouts.ts); null: not run. */
  dropouts: { width: number; height: number; threshold: number } | null;
  /** Applied in order. */
  denoise: Denoise[];
  /** Studio Max on a soft picture: an unsharp mask on luma (size in px, amount); null: none. */
  sharpen?: { size: number; amount: number } | null;
  /**
   * Enhanced, before its upscale: ffmpeg's weak deblock on the source's 8-px block grid, at
   * thresholds (fractions of 255) about those x264's in-loop filter uses at CRF 16. Standard gets
   * that smoothing from its own SD encode, whose blocks lie on the source's; after a 1.25× scale
   * they do not (docs/restore.md, "Blocking"). A flat picture the probe read as blocked
   * (blockiness.ts) gets pp7 instead (`filter: "pp7"`, at a constant quantiser `qp`). Absent or
   * null: none; a plan made before `filter` existed has the weak deblock.
   */
  deblock?: Deblock | null;
  /** Moves the colour sideways by this many chroma pixels of the yuv420p picture; null: not. */
  chromaShift: number | null;
  /** Contrast stretch around `pivot` (8-bit code) by `gain`. */
  levels: { gain: number; pivot: number } | null;
  /** eq saturation factor: >1 revives faded colour, 0 drops chroma noise from black-and-white. */
  saturation: number | null;
  /** Upright size after rotation and any even-crop, before scaling. */
  crop: { width: number; height: number } | null;
  /**
   * zscale resizes and converts the matrix at full chroma resolution; swscale (`scale`, when
   * this ffmpeg lacks zscale) needs accurate rounding and full chroma interpolation for that.
   */
  scale: {
    width: number;
    height: number;
    convertMatrixTo709: boolean;
    filter: "zscale" | "scale";
    /** Lanczos taps each side; absent: the scalers' own 3 (Studio Max's clean pictures: 4). */
    taps?: number;
  } | null;
  output: { width: number; height: number; fps: number | null };
}

export interface AudioPlan {
  highpassHz: number;
  hum: { hz: 50 | 60; harmonics: number; widthHz: number } | null;
  /**
   * afftdn delays its output by `delaySamples` (at sampleRate, which it runs at) while keeping
   * the length; the chain pads the end and trims the start by as much, so sound stays in sync.
   */
  denoise: { filter: "afftdn"; reductionDb: number; floorDb: number; delaySamples: number } | null;
  loudness: {
    targetI: number;
    truePeak: number;
    lra: number;
    measured: LoudnessMeasurement | null;
  } | null;
  sampleRate: number;
  channels: number;
}

export interface EncodePlan {
  x264Preset: string;
  crf: number;
  /**
   * x264's chroma QP relative to luma (negative: finer colour). Optional in stored plans made
   * before it existed (read as 0).
   */
  chromaQpOffset?: number;
  /** x264 VBV cap (kbit/s) and its buffer: CRF decides, the cap bounds noisy or busy scenes. */
  maxrateK: number;
  bufsizeK: number;
  audioBitrateK: number;
  threads: number | null;
}

export interface RestorePlan {
  version: 1;
  quality: RestoreQuality;
  source: SourceInfo;
  measured: Measurements;
  video: VideoPlan;
  audio: AudioPlan | null;
  encode: EncodePlan;
  /** One line per decision, saying why; for logs and the benchmark report. */
  notes: string[];
}
