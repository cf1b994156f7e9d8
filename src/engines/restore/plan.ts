/**
 * The restoration decisions, as pure functions of what the probe measured. Their thresholds
 * live in limits.ts, named, so a change of policy is one reviewed line with a test beside it.
 */
import { last } from "../../domain/checked-index.js";
import { decideDeblock, readsBlocks, sizeQuality } from "./blocks-plan.js";
import { decideChromaShift } from "./chroma-shift.js";
import { decideDenoise, encodeCrf, leavesColourGrain } from "./denoise.js";
import { decideDropouts } from "./dropouts.js";
import { type Capabilities, LIMITS } from "./limits.js";
import { decideScaleTaps } from "./scale-taps.js";
import { decideTone } from "./tone.js";
import type {
  AudioPlan,
  EncodePlan,
  FadeHint,
  Measurements,
  RestorePlan,
  RestoreQuality,
  SourceInfo,
  VideoPlan,
} from "./types.js";

export { DENOISE, decideDenoise } from "./denoise.js";
export type { Capabilities } from "./limits.js";
export { LIMITS } from "./limits.js";
export { decideTone } from "./tone.js";

const even = (x: number): number => Math.max(2, Math.round(x / 2) * 2);
const evenDown = (x: number): number => Math.max(2, Math.floor(x / 2) * 2);

/** idet's verdict: the parity it found, or null for progressive; undefined when undecided. */
function idetParity(
  counts: Measurements["interlace"],
  share: number,
): "tff" | "bff" | null | undefined {
  const decided = counts ? counts.tff + counts.bff + counts.progressive : 0;
  if (!counts || decided < LIMITS.minDecidedFrames) return undefined;
  const combed = counts.tff + counts.bff;
  const dominant = Math.max(counts.tff, counts.bff);
  if (combed / decided >= share && dominant >= LIMITS.parityAgreement * combed) {
    return counts.tff >= counts.bff ? "tff" : "bff";
  }
  return null;
}

/**
 * Decides whether and how to deinterlace. A flagged field order counts unless idet clearly
 * finds the other one; an unflagged or progressive header is overruled by clear combing.
 */
export function decideDeinterlace(
  quality: RestoreQuality,
  source: SourceInfo,
  counts: Measurements["interlace"],
  caps: Capabilities,
  notes: string[],
): VideoPlan["deinterlace"] {
  const flagged =
    source.fieldOrder === "tff" || source.fieldOrder === "bff" ? source.fieldOrder : null;
  const counted = counts
    ? `idet: ${counts.tff} TFF, ${counts.bff} BFF, ${counts.progressive} progressive`
    : "idet: nothing decided";
  let parity: "tff" | "bff" | null;
  if (flagged) {
    const other = idetParity(counts, LIMITS.overruleHeaderShare);
    parity = other && other !== flagged ? other : flagged;
    notes.push(`${counted}; header says ${flagged} → ${parity}`);
  } else {
    parity = idetParity(counts, LIMITS.interlacedShare) ?? null;
    notes.push(`${counted} → ${parity ?? "progressive"}`);
  }
  if (!parity) return null;
  const filter = caps.has("bwdif") ? "bwdif" : caps.has("yadif") ? "yadif" : null;
  if (!filter) {
    notes.push("interlaced, but this ffmpeg has neither bwdif nor yadif");
    return null;
  }
  return { filter, parity, sendField: quality === "enhanced_max" };
}

/** Upright size (rotation applied) with the pixel aspect ratio as width multiplier. */
export function uprightGeometry(source: SourceInfo): {
  width: number;
  height: number;
  sar: number;
} {
  const sar = source.sarNum / source.sarDen;
  const quarter = source.rotationCw === 90 || source.rotationCw === 270;
  return quarter
    ? { width: source.height, height: source.width, sar: 1 / sar }
    : { width: source.width, height: source.height, sar };
}

/**
 * Upscale factor per quality, capped so the output never exceeds UHD and never shrinks.
 * Enhanced aims at the 720-line class (at most 2×), Studio Max at the 1080-line class (at most
 * 3×): an upscale adds no picture information, it only spares the player a poor scaler, so
 * neither goes past the screen class it is for (HD input is not enlarged by Enhanced at all).
 */
export function upscaleFactor(quality: RestoreQuality, displayW: number, displayH: number): number {
  if (quality === "faithful") return 1;
  const short = Math.min(displayW, displayH);
  const long = Math.max(displayW, displayH);
  const wanted = quality === "enhanced" ? Math.min(2, 720 / short) : Math.min(3, 1080 / short);
  const capped = Math.min(wanted, LIMITS.maxLongEdgePx / long, LIMITS.maxShortEdgePx / short);
  return Math.max(1, capped);
}

/** Crop to even size (faithful keeps every pixel it can) or scale to the upscale target. */
export function decideGeometry(
  quality: RestoreQuality,
  source: SourceInfo,
  notes: string[],
  caps: Capabilities = { has: () => false },
): Pick<VideoPlan, "crop" | "scale"> & { width: number; height: number } {
  const up = uprightGeometry(source);
  const displayW = up.width * up.sar;
  const f = upscaleFactor(quality, displayW, up.height);
  const squarePixels = Math.abs(up.sar - 1) < 0.01;
  if (f === 1 && (quality === "faithful" || squarePixels)) {
    const width = evenDown(up.width);
    const height = evenDown(up.height);
    const crop = width !== up.width || height !== up.height ? { width, height } : null;
    if (crop) notes.push(`odd size ${up.width}x${up.height}: crop to ${width}x${height}`);
    return { crop, scale: null, width, height };
  }
  // Scaling makes pixels square, so anamorphic SD comes out at its true shape.
  const width = Math.min(even(displayW * f), evenDown(LIMITS.maxLongEdgePx));
  const height = even(up.height * f);
  const sdSource =
    Math.max(source.width, source.height) < 1280 && Math.min(source.width, source.height) < 720;
  const source601 = source.colorMatrix === "bt601" || (source.colorMatrix === null && sdSource);
  // Players read untagged HD as BT.709: convert SD's BT.601 colours when we cross into HD.
  const convertMatrixTo709 = source601 && Math.min(width, height) >= 720;
  notes.push(
    `scale ${up.width}x${up.height} → ${width}x${height} (×${f.toFixed(2)}, lanczos, no sharpening)`,
  );
  // zimg refuses 4:2:0 pictures of odd size; swscale (accurate mode) takes those.
  const odd = up.width % 2 !== 0 || up.height % 2 !== 0;
  const filter = caps.has("zscale") && !odd ? "zscale" : "scale";
  return { crop: null, scale: { width, height, convertMatrixTo709, filter }, width, height };
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export function decideAudio(
  quality: RestoreQuality,
  source: SourceInfo,
  measured: Measurements,
  caps: Capabilities,
  notes: string[],
): AudioPlan | null {
  if (!source.audio) return null;
  let hum: AudioPlan["hum"] = null;
  if (measured.hum) {
    const { db50, db60 } = measured.hum;
    const hz = db50 >= db60 ? 50 : 60;
    const best = Math.max(db50, db60);
    if (best >= LIMITS.humDb && Math.abs(db50 - db60) >= LIMITS.humMarginDb) {
      hum = { hz, harmonics: 4, widthHz: 4 };
    }
    notes.push(
      `hum: 50 Hz ${db50.toFixed(1)} dB, 60 Hz ${db60.toFixed(1)} dB → ${hum ? `notch ${hz} Hz` : "none"}`,
    );
  }
  let loudness: AudioPlan["loudness"] = null;
  const m = measured.loudness;
  if (caps.has("loudnorm") && !(m && m.inputI < LIMITS.quietestNormalisedLufs)) {
    loudness = { targetI: -16, truePeak: -1.5, lra: 11, measured: m };
  } else if (m) notes.push(`audio at ${m.inputI} LUFS is too quiet to normalise`);
  return {
    highpassHz: 40,
    hum,
    denoise: caps.has("afftdn")
      ? {
          filter: "afftdn",
          reductionDb: quality === "faithful" ? 12 : 16,
          floorDb: -50,
          delaySamples: Math.round(LIMITS.afftdnDelaySec * SAMPLE_RATE),
        }
      : null,
    loudness,
    sampleRate: SAMPLE_RATE,
    channels: Math.min(2, Math.max(1, source.audio.channels)),
  };
}

/** Delivery sample rate. */
const SAMPLE_RATE = 48000;

/** The VBV cap for an output of `short` lines (its shorter side). */
export function maxrateFor(quality: RestoreQuality, width: number, height: number): number {
  const short = Math.min(width, height);
  const [, k] = LIMITS.maxrateK.find(([lines]) => short <= lines) ?? last(LIMITS.maxrateK);
  return quality === "enhanced_max" ? Math.round(k * LIMITS.studioMaxRateShare) : k;
}

export interface PlanInput {
  quality: RestoreQuality;
  /** What the customer said of the levels; default "auto" (the analysis decides). */
  fade?: FadeHint;
  source: SourceInfo;
  measured: Measurements;
  caps: Capabilities;
  encode?: Partial<EncodePlan>;
}

export function decideVideo(input: PlanInput, notes: string[]): VideoPlan {
  const { quality, source, measured, caps } = input;
  const enhanced = quality !== "faithful";
  const deinterlace = decideDeinterlace(quality, source, measured.interlace, caps, notes);
  const canStabilise = caps.has("vidstabdetect") && caps.has("vidstabtransform");
  const shaky = measured.shakeRatio !== null && measured.shakeRatio > LIMITS.shakeRatio;
  // Faithful keeps the framing as shot; enhanced qualities steady it, but only when it shakes.
  const stabilise =
    enhanced && shaky && canStabilise ? { smoothing: Math.round((source.fps ?? 25) / 2) } : null;
  if (measured.shakeRatio !== null) {
    const pct = (measured.shakeRatio * 100).toFixed(2);
    notes.push(`shake ${pct}% of height → ${stabilise ? "stabilise" : "leave"}`);
  }
  const sizedAs = sizeQuality(quality, measured, caps, notes);
  const geometry = decideGeometry(sizedAs, source, notes, caps);
  const { width: uprightWidth, height: uprightHeight } = uprightGeometry(source);
  const tone = enhanced
    ? decideTone(measured.levels, notes, input.fade)
    : { levels: null, saturation: null };
  const fps = source.fps;
  // Studio Max makes a frame of each field of interlaced video (real pictures, 20 ms apart);
  // it invents none between frames: motion interpolation made it 0.065× real time on
  // progressive SD for frames that score nothing (docs/restore.md).
  const outFps = deinterlace?.sendField && fps ? fps * 2 : fps;
  // Decided in this order, for the notes' order.
  const deflicker = decideDeflicker(measured.flicker, caps, notes);
  const dropouts = decideDropouts(uprightWidth, uprightHeight, caps, notes);
  // The motion average reads raw frames at a constant rate (chain-average.ts), yuv420p of
  // even sizes so the noisy picture and its guide stack into one frame.
  const denoise = decideDenoise(
    measured.noise ?? null,
    quality,
    caps,
    notes,
    (outFps ?? 0) > 0 && uprightWidth % 2 === 0 && uprightHeight % 2 === 0,
  );
  const sharpen = decideSharpen(quality, measured, caps, notes);
  const scaled = geometry.scale !== null;
  const grainy = leavesColourGrain(denoise);
  const deblock = decideDeblock(quality, scaled, measured.blockiness, caps, notes, grainy);
  // Colour that slipped off the picture is put back at every quality: a repair, like a dropout.
  const chromaShift = decideChromaShift(measured.chromaShift, source.rotationCw, caps, notes);
  const filtered = denoise.length > 0 || !!deblock || !!sharpen;
  const scale = decideScaleTaps(sizedAs, geometry.scale, filtered, notes);
  return {
    deinterlace,
    rotationCw: source.rotationCw,
    stabilise,
    deflicker,
    dropouts,
    denoise,
    sharpen,
    deblock,
    chromaShift,
    ...tone,
    crop: geometry.crop,
    scale,
    output: { width: geometry.width, height: geometry.height, fps: outFps ? round3(outFps) : null },
  };
}

/**
 * Deflicker only a picture measured to flicker: on a steady one, evening each frame's brightness
 * with its neighbours' only moved it (0.4–0.5 dB of luma PSNR lost on clean pans).
 */
export function decideDeflicker(
  flicker: Measurements["flicker"],
  caps: Capabilities,
  notes: string[],
): boolean {
  if (flicker === null || flicker === undefined) return false;
  const on = flicker >= LIMITS.flickerCodes && caps.has("deflicker");
  notes.push(`brightness jumps ${flicker} between frames → ${on ? "deflicker" : "steady"}`);
  return on;
}

/**
 * Studio Max sharpens a picture measured soft (blur.ts: its sharpest edges blurred by σ ≥
 * LIMITS.sharpenBlur) or enlarged from a coarser grid (grid.ts: an enlargement's phase contrast
 * ≤ LIMITS.upscaledGridContrast; such a picture keeps a few sharp-looking edges and can read
 * sharp), luma only, at the source's size. Sharpening costs a clean picture dearly
 * (3–7 dB of luma PSNR on the tuning set's clean clips), so it waits for the measurement. A
 * picture starved of bits reads soft too (its quantiser took the fine detail), and there the
 * mask sharpens the compression blocks, not lost edges: where the probe reads blocks
 * (blockiness.ts, LIMITS.blockyRatio) on a picture not mostly grain (LIMITS.blockyFlatFloor)
 * it is left unsharpened.
 */
export function decideSharpen(
  quality: RestoreQuality,
  measured: Pick<Measurements, "blur" | "blockiness" | "grid">,
  caps: Capabilities,
  notes: string[],
): VideoPlan["sharpen"] {
  const { blur, grid } = measured;
  const hasBlur = blur !== null && blur !== undefined;
  const hasGrid = grid !== null && grid !== undefined;
  if (quality !== "enhanced_max" || (!hasBlur && !hasGrid)) return null;
  const enlarged = hasGrid && grid.contrast <= LIMITS.upscaledGridContrast;
  const soft = ((hasBlur && blur >= LIMITS.sharpenBlur) || enlarged) && caps.has("unsharp");
  const blocked = readsBlocks(measured.blockiness, LIMITS.blockyFlatFloor);
  const verdict = !soft
    ? "sharp enough"
    : blocked
      ? "soft, but compression blocks: not sharpened"
      : "sharpen";
  // The grid is named where it decides, or where it is all that was read (too few edges).
  const gridRead = !hasGrid
    ? null
    : enlarged
      ? `enlarged ${grid.factor}× from a coarser grid (phase contrast ${grid.contrast})`
      : hasBlur
        ? null
        : `too few strong edges to read, no enlargement read (phase contrast ${grid.contrast})`;
  const read = [hasBlur ? `sharpest edges blurred by σ ${blur} px` : null, gridRead];
  notes.push(`${read.filter((r) => r !== null).join("; ")} → ${verdict}`);
  return soft && !blocked ? { size: LIMITS.sharpenSize, amount: LIMITS.sharpenAmount } : null;
}

/** Every decision of a restoration, from the probe's facts. Pure. */
export function decidePlan(input: PlanInput): RestorePlan {
  const notes: string[] = [];
  const video = decideVideo(input, notes);
  const { quality, source, measured, caps } = input;
  // A picture delivered at a lower quality's size (sizeQuality) gets that quality's rate too:
  // Studio Max's extra bits copied a starved source's blocks (docs/restore.md).
  const sizedAs = sizeQuality(quality, measured, caps, []);
  const maxrate = maxrateFor(sizedAs, video.output.width, video.output.height);
  return {
    version: 1,
    quality,
    source,
    measured,
    video,
    audio: decideAudio(quality, source, measured, caps, notes),
    encode: {
      x264Preset: input.encode?.x264Preset ?? "veryfast",
      crf: input.encode?.crf ?? encodeCrf(video.denoise, LIMITS.crf),
      chromaQpOffset: input.encode?.chromaQpOffset ?? LIMITS.chromaQpOffset,
      maxrateK: input.encode?.maxrateK ?? maxrate,
      bufsizeK: input.encode?.bufsizeK ?? maxrate * 2,
      audioBitrateK: input.encode?.audioBitrateK ?? 160,
      threads: input.encode?.threads ?? null,
    },
    notes,
  };
}
