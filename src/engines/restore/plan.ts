/**
 * The restoration decisions, as pure functions of what the probe measured. Thresholds live here,
 * named, so a change of policy is one reviewed line with a test beside it.
 */
import type {
  AudioPlan,
  Denoise,
  EncodePlan,
  Measurements,
  RestorePlan,
  RestoreQuality,
  SourceInfo,
  VideoPlan,
} from "./types.js";

/** Which ffmpeg filters this build has (see `hasFilter`); injected so decisions stay pure. */
export interface Capabilities {
  has(filter: string): boolean;
}

export const LIMITS = {
  /** Never upscale past UHD: long edge and short edge caps. */
  maxLongEdgePx: 3840,
  maxShortEdgePx: 2160,
  /** Share of decided idet frames that must be combed to call the video interlaced. */
  interlacedShare: 0.4,
  /**
   * Real interlacing has one field order throughout; fine detail in progressive video trips
   * idet both ways (testsrc2 reads ~60/40 TFF/BFF), so demand this much agreement.
   */
  parityAgreement: 0.8,
  /** Fewer decided idet frames than this and we trust the header instead. */
  minDecidedFrames: 8,
  /** Mean jitter over picture height above which we stabilise (0.8% ≈ 3 px at 360 lines). */
  shakeRatio: 0.008,
  /** A hum harmonic set must stand this far above its neighbourhood, and beat the other mains. */
  humDb: 10,
  humMarginDb: 3,
  /** Below this integrated loudness we would mostly amplify noise: leave levels alone. */
  quietestNormalisedLufs: -45,
  /**
   * Contrast stretch when the luma span (of 219 legal codes) is below fadedLumaSpan: aim for
   * targetLumaSpan, never by more than maxLevelsGain. Test patterns span ~180: left alone.
   */
  fadedLumaSpan: 170,
  targetLumaSpan: 190,
  maxLevelsGain: 1.25,
  /** Mean chroma saturation below which the picture is black-and-white (drop chroma noise). */
  monochromeSat: 2.5,
  /** Below this it is faded colour: revive it, by at most maxSaturation. */
  fadedSat: 12,
  maxSaturation: 1.3,
  /** Progressive input at or below this rate is motion-interpolated in Studio Max. */
  interpolateBelowFps: 30.5,
  maxOutputFps: 60,
} as const;

const even = (x: number): number => Math.max(2, Math.round(x / 2) * 2);
const evenDown = (x: number): number => Math.max(2, Math.floor(x / 2) * 2);

/** Decides whether and how to deinterlace; idet's measurement wins over the header. */
export function decideDeinterlace(
  quality: RestoreQuality,
  source: SourceInfo,
  counts: Measurements["interlace"],
  caps: Capabilities,
  notes: string[],
): VideoPlan["deinterlace"] {
  let parity: "tff" | "bff" | null = null;
  const decided = counts ? counts.tff + counts.bff + counts.progressive : 0;
  if (counts && decided >= LIMITS.minDecidedFrames) {
    const combed = counts.tff + counts.bff;
    const dominant = Math.max(counts.tff, counts.bff);
    if (combed / decided >= LIMITS.interlacedShare && dominant >= LIMITS.parityAgreement * combed) {
      parity = counts.tff >= counts.bff ? "tff" : "bff";
    }
    notes.push(
      `idet: ${counts.tff} TFF, ${counts.bff} BFF, ${counts.progressive} progressive → ${parity ?? "progressive"}`,
    );
  } else if (source.fieldOrder === "tff" || source.fieldOrder === "bff") {
    parity = source.fieldOrder;
    notes.push(`idet undecided; header says ${parity}`);
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

/** Upscale factor per quality, capped so the output never exceeds UHD and never shrinks. */
export function upscaleFactor(quality: RestoreQuality, displayW: number, displayH: number): number {
  if (quality === "faithful") return 1;
  const short = Math.min(displayW, displayH);
  const long = Math.max(displayW, displayH);
  // Studio Max aims at the 1080-line class: at least 2×, at most 3×.
  const wanted = quality === "enhanced" ? 2 : Math.min(3, Math.max(2, 1080 / short));
  const capped = Math.min(wanted, LIMITS.maxLongEdgePx / long, LIMITS.maxShortEdgePx / short);
  return Math.max(1, capped);
}

/** Crop to even size (faithful keeps every pixel it can) or scale to the upscale target. */
export function decideGeometry(
  quality: RestoreQuality,
  source: SourceInfo,
  notes: string[],
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
  notes.push(`scale ${up.width}x${up.height} → ${width}x${height} (×${f.toFixed(2)}, lanczos)`);
  return { crop: null, scale: { width, height, convertMatrixTo709 }, width, height };
}

const GENTLE_HQDN3D: Denoise = {
  filter: "hqdn3d",
  lumaSpatial: 3,
  chromaSpatial: 2.5,
  lumaTemporal: 4,
  chromaTemporal: 3.5,
};
const STRONG_HQDN3D: Denoise = {
  filter: "hqdn3d",
  lumaSpatial: 5,
  chromaSpatial: 4,
  lumaTemporal: 7,
  chromaTemporal: 6,
};

export function decideDenoise(quality: RestoreQuality, caps: Capabilities): Denoise[] {
  if (!caps.has("hqdn3d")) return [];
  if (quality === "faithful") return [GENTLE_HQDN3D];
  if (quality === "enhanced" || !caps.has("fftdnoiz")) return [STRONG_HQDN3D];
  // Studio Max: a spatial FFT Wiener pass does the heavy lifting and a gentle hqdn3d adds the
  // temporal part. fftdnoiz's own prev/next is 5–20× slower in ffmpeg 5.1 for ~no gain here.
  return [{ filter: "fftdnoiz", sigma: 6 }, GENTLE_HQDN3D];
}

/** Contrast stretch and saturation from measured levels (enhanced qualities only). */
export function decideTone(
  levels: Measurements["levels"],
  notes: string[],
): Pick<VideoPlan, "levels" | "saturation"> {
  if (!levels) return { levels: null, saturation: null };
  let tone: VideoPlan["levels"] = null;
  const span = levels.yMax - levels.yMin;
  if (span > 0 && span < LIMITS.fadedLumaSpan) {
    const pivot = (levels.yMin + levels.yMax) / 2;
    // Stretch around the picture's own mid-grey (keeps its brightness), staying inside 16–235.
    const gain = Math.min(
      LIMITS.targetLumaSpan / span,
      LIMITS.maxLevelsGain,
      (pivot - 16) / Math.max(1, pivot - levels.yMin),
      (235 - pivot) / Math.max(1, levels.yMax - pivot),
    );
    if (gain >= 1.05) tone = { gain: round3(gain), pivot: round3(pivot) };
  }
  let saturation: number | null = null;
  if (levels.satAvg < LIMITS.monochromeSat) saturation = 0;
  else if (levels.satAvg < LIMITS.fadedSat) {
    const s = Math.min(LIMITS.maxSaturation, LIMITS.fadedSat / levels.satAvg);
    if (s >= 1.05) saturation = round3(s);
  }
  notes.push(
    `levels: Y ${levels.yMin}–${levels.yMax}, saturation ${levels.satAvg.toFixed(1)} → ` +
      `${tone ? `stretch ×${tone.gain}` : "no stretch"}, ${saturation === null ? "colour kept" : saturation === 0 ? "black-and-white" : `saturation ×${saturation}`}`,
  );
  return { levels: tone, saturation };
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
      ? { filter: "afftdn", reductionDb: quality === "faithful" ? 12 : 16, floorDb: -50 }
      : null,
    loudness,
    sampleRate: 48000,
    channels: Math.min(2, Math.max(1, source.audio.channels)),
  };
}

export interface PlanInput {
  quality: RestoreQuality;
  source: SourceInfo;
  measured: Measurements;
  caps: Capabilities;
  encode?: Partial<EncodePlan>;
}

function decideSharpen(quality: RestoreQuality, caps: Capabilities): VideoPlan["sharpen"] {
  if (quality === "faithful") return null;
  if (caps.has("cas")) return { filter: "cas", strength: quality === "enhanced" ? 0.4 : 0.5 };
  if (caps.has("unsharp")) return { filter: "unsharp", amount: quality === "enhanced" ? 0.5 : 0.7 };
  return null;
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
  const geometry = decideGeometry(quality, source, notes);
  const tone = enhanced ? decideTone(measured.levels, notes) : { levels: null, saturation: null };
  const fps = source.fps;
  let interpolateFps: number | null = null;
  const lowRate = fps !== null && fps <= LIMITS.interpolateBelowFps;
  if (quality === "enhanced_max" && !deinterlace && lowRate && caps.has("minterpolate")) {
    interpolateFps = round3(Math.min(LIMITS.maxOutputFps, (fps as number) * 2));
  }
  const outFps = deinterlace?.sendField && fps ? fps * 2 : (interpolateFps ?? fps);
  return {
    deinterlace,
    rotationCw: source.rotationCw,
    stabilise,
    deflicker: caps.has("deflicker"),
    denoise: decideDenoise(quality, caps),
    ...tone,
    interpolateFps,
    crop: geometry.crop,
    scale: geometry.scale,
    sharpen: decideSharpen(quality, caps),
    output: { width: geometry.width, height: geometry.height, fps: outFps ? round3(outFps) : null },
  };
}

/** Every decision of a restoration, from the probe's facts. Pure. */
export function decidePlan(input: PlanInput): RestorePlan {
  const notes: string[] = [];
  const video = decideVideo(input, notes);
  const { quality, source, measured, caps } = input;
  return {
    version: 1,
    quality,
    source,
    measured,
    video,
    audio: decideAudio(quality, source, measured, caps, notes),
    encode: {
      x264Preset: input.encode?.x264Preset ?? "veryfast",
      crf: input.encode?.crf ?? 18,
      audioBitrateK: input.encode?.audioBitrateK ?? 160,
      threads: input.encode?.threads ?? null,
    },
    notes,
  };
}
