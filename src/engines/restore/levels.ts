/**
 * The picture's levels, from the probe's raw frames: how dark its darkest colour is and how bright
 * its brightest, in RGB. A fade (dye, a worn tape) lays a veil over the whole picture: every
 * channel of every pixel is lifted, so even the most saturated colours lose their dark channel.
 * A natural scene keeps one — shade, or a saturated colour, has some channel near zero — unless
 * haze or fog veils it on purpose (then the scene is grey or pale: see decideTone). Luma alone
 * could not tell a dark green meadow (luma 60, blue channel near 0) from a faded one.
 *
 * Each frame is read as means of 4×4 pixels (grain averaged away: σ/4), converted to RGB, and
 * counted into histograms; percentiles come from those (robust to a few odd pixels). Pure.
 */
import * as checked from "../../domain/checked-index.js";

// Bound once: called through the module namespace (as vitest and tsx run the source), the
// readers are not inlined, and the pixel loops ran 15–30× slower.
const { byteAt, f64At } = checked;

/** Levels of the analysed frames, 8-bit codes (RGB full range 0–255; luma as coded). */
export interface LevelsReading {
  /** Luma's 0.5th, 50th and 99.5th percentiles. */
  yLow: number;
  yMid: number;
  yHigh: number;
  /** The dark channel: 0.5th percentile of min(R, G, B); can be below 0 (out of gamut). */
  dark: number;
  /** 99.5th percentile of max(R, G, B); can exceed 255. */
  bright: number;
  /** Mean distance of the colour from grey, in chroma codes (0 for black and white). */
  sat: number;
}

/** BT.601 and BT.709 YCbCr (limited range) → RGB coefficients: [Cr→R, Cb→G, Cr→G, Cb→B]. */
const MATRICES = {
  bt601: [1.596, 0.392, 0.813, 2.017],
  bt709: [1.793, 0.213, 0.533, 2.112],
} as const;

/** Histogram range: codes −128…383 (RGB can leave 0–255 on out-of-gamut noise). */
const LOWEST = -128;
const BINS = 512;
const LOW = 0.005;
const HIGH = 0.995;

function percentile(hist: Float64Array, total: number, q: number): number {
  const target = q * total;
  let seen = 0;
  for (let i = 0; i < hist.length; i++) {
    seen += f64At(hist, i);
    if (seen >= target) return i + LOWEST;
  }
  return hist.length - 1 + LOWEST;
}

function count1(hist: Float64Array, v: number) {
  const i = Math.max(0, Math.min(BINS - 1, Math.round(v) - LOWEST));
  hist[i] = f64At(hist, i) + 1;
}

export interface LevelsMeter {
  /** Counts one whole yuv420p frame of the meter's size. */
  measure(frame: Uint8Array): void;
  /** The levels of every frame measured; null before one. */
  result(): LevelsReading | null;
}

export function createLevelsMeter(
  width: number,
  height: number,
  matrix: "bt601" | "bt709" = "bt601",
): LevelsMeter {
  const [crR, cbG, crG, cbB] = MATRICES[matrix];
  const luma = new Float64Array(BINS);
  const dark = new Float64Array(BINS);
  const bright = new Float64Array(BINS);
  let satSum = 0;
  let count = 0;
  const cw = width >> 1;
  const uAt = width * height;
  const vAt = uAt + cw * (height >> 1);
  return {
    measure(frame) {
      for (let y = 0; y + 4 <= height; y += 4) {
        for (let x = 0; x + 4 <= width; x += 4) {
          let sy = 0;
          for (let dy = 0; dy < 4; dy++) {
            const row = (y + dy) * width + x;
            sy += byteAt(frame, row) + byteAt(frame, row + 1);
            sy += byteAt(frame, row + 2) + byteAt(frame, row + 3);
          }
          const c0 = (y >> 1) * cw + (x >> 1);
          const cb =
            (byteAt(frame, uAt + c0) +
              byteAt(frame, uAt + c0 + 1) +
              byteAt(frame, uAt + c0 + cw) +
              byteAt(frame, uAt + c0 + cw + 1)) /
              4 -
            128;
          const cr =
            (byteAt(frame, vAt + c0) +
              byteAt(frame, vAt + c0 + 1) +
              byteAt(frame, vAt + c0 + cw) +
              byteAt(frame, vAt + c0 + cw + 1)) /
              4 -
            128;
          const yy = sy / 16;
          const base = 1.164 * (yy - 16);
          const r = base + crR * cr;
          const g = base - cbG * cb - crG * cr;
          const b = base + cbB * cb;
          count1(luma, yy);
          count1(dark, Math.min(r, g, b));
          count1(bright, Math.max(r, g, b));
          satSum += Math.hypot(cb, cr);
          count++;
        }
      }
    },
    result() {
      if (count === 0) return null;
      return {
        yLow: percentile(luma, count, LOW),
        yMid: percentile(luma, count, 0.5),
        yHigh: percentile(luma, count, HIGH),
        dark: percentile(dark, count, LOW),
        bright: percentile(bright, count, HIGH),
        sat: Math.round((satSum / count) * 10) / 10,
      };
    },
  };
}
