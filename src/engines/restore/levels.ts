/**
 * The picture's levels, from the probe's raw frames: how dark its darkest colour is and how bright
 * its brightest, in RGB. A fade (dye, a worn tape) lays a veil over the whole picture: every
 * channel of every pixel is lifted, so even the most saturated colours lose their dark channel.
 * A natural scene keeps one — shade, or a saturated colour, has some channel near zero — unless
 * haze or fog veils it on purpose (then the scene is grey or pale: see decideTone). Luma alone
 * could not tell a dark green meadow (luma 60, blue channel near 0) from a faded one.
 *
 * Each frame is read as means of 4×4 pixels (fine grain averaged away: σ/4), converted to RGB, and
 * counted into histograms; percentiles come from those (robust to a few odd pixels). A grainy
 * picture (the probe's noise reading, see GRAINY) is read from means of 24×24 pixels instead
 * (WIDE): heavy grain, in the colour above all, pulls the dark channel's 0.5th percentile of
 * 4×4 means far below the veil. Pure.
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
  /**
   * True when read from a grainy picture's wide (WIDE-px) means: their ends say less surely
   * where the scene's own ends are, so only part of the stretch is made (tone.ts). Absent: 4 px.
   */
  wide?: boolean;
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

/**
 * Side of the squares a grainy picture's levels are read from (luma pixels; colour over the same
 * area). Grain is zero-mean and a fade lifts whole areas, so a wider mean keeps the veil and loses
 * the grain; 4:2:0 colour has a quarter of the samples, so its grain decides the size. At 4 px the
 * tuning set's combined tape damage (grain σ 9 luma / 12 colour, and σ 7 / 9 drawn at 2 px) read
 * dark channels of 19 and 11, where the same photographs faded without grain read 30–35: never
 * corrected. Chosen on the tuning cells' 3 s clips (bench/quality, 2026-11-30, the probe's
 * frames: every 5th frame's top field), dark channel at 4 / 8 / 16 / 24 / 32 px: `boats tape-a`
 * 19 / 25 / 28 / 30 / 34, `dune tape-b` 11 / 25 / 33 / 36 / 39; the grainy cells (grain 4–10, 2-
 * and 3-px grain too) stay unfaded up to 24 px (`storm grain-4` 23 / 28 / 29, whites 214; at 32
 * px 31 / 211: faded). The margins at 24 px are thin: `boats tape-a` reads fadeVeil exactly (30),
 * `storm grain-4` and `storm dropouts-grain` one under it (29). Wide means lift a clean picture's small dark details and dim its small
 * highlights (the fixtures' fog lifted 8, one 480×360 still: dark 35 → 50, grey needs 48; clean
 * forest's whites 170 → 119), which is why a clean picture keeps 4 px.
 */
const WIDE = 24;
/** How many 4-px squares a wide square spans, across and down. */
const SPAN = WIDE / 4;

/**
 * A picture is grainy, for the levels, when the probe's temporal noise σ (8-bit codes) reaches
 * these, colour or luma. Tuning clips (bench/quality, 3 s, read by the probe): clean ones
 * colour ≤ 0.28 and luma ≤ 1.59 (`forest`'s texture), grainy ones colour ≥ 3.46 (`storm grain-4`)
 * and luma ≥ 2.08 (the same), the tape cells colour 5.78 and 8.17.
 */
export const GRAINY = { y: 2.5, c: 1.5 } as const;

/** The probe's noise reading, as far as the levels use it. */
export interface GrainReading {
  y: number;
  c: number;
}

/** Whether `noise` is grainy enough to read the levels from wide means (GRAINY). */
export function isGrainy(noise: GrainReading | null | undefined): boolean {
  return !!noise && (noise.y >= GRAINY.y || noise.c >= GRAINY.c);
}

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
  /**
   * The levels of every frame measured; null before one. With the probe's noise reading, a
   * grainy picture (isGrainy) is read from its wide means.
   */
  result(noise?: GrainReading | null): LevelsReading | null;
}

/** One scale's histograms. */
interface Tally {
  luma: Float64Array;
  dark: Float64Array;
  bright: Float64Array;
  satSum: number;
  count: number;
}

const tally = (): Tally => ({
  luma: new Float64Array(BINS),
  dark: new Float64Array(BINS),
  bright: new Float64Array(BINS),
  satSum: 0,
  count: 0,
});

function readingOf(t: Tally, wide: boolean): LevelsReading | null {
  if (t.count === 0) return null;
  return {
    yLow: percentile(t.luma, t.count, LOW),
    yMid: percentile(t.luma, t.count, 0.5),
    yHigh: percentile(t.luma, t.count, HIGH),
    dark: percentile(t.dark, t.count, LOW),
    bright: percentile(t.bright, t.count, HIGH),
    sat: Math.round((t.satSum / t.count) * 10) / 10,
    ...(wide ? { wide } : {}),
  };
}

export function createLevelsMeter(
  width: number,
  height: number,
  matrix: "bt601" | "bt709" = "bt601",
): LevelsMeter {
  const [crR, cbG, crG, cbB] = MATRICES[matrix];
  const fine = tally();
  const wide = tally();
  const cw = width >> 1;
  const uAt = width * height;
  const vAt = uAt + cw * (height >> 1);
  // Sums of the wide squares of one band of WIDE rows, filled from the 4-px squares.
  const across = Math.floor(width / WIDE);
  const wy = new Float64Array(across);
  const wu = new Float64Array(across);
  const wv = new Float64Array(across);
  /** Counts one square's means (luma yy, colour cb / cr about 128) into `t`. */
  const count = (t: Tally, yy: number, cb: number, cr: number) => {
    const base = 1.164 * (yy - 16);
    const r = base + crR * cr;
    const g = base - cbG * cb - crG * cr;
    const b = base + cbB * cb;
    count1(t.luma, yy);
    count1(t.dark, Math.min(r, g, b));
    count1(t.bright, Math.max(r, g, b));
    t.satSum += Math.hypot(cb, cr);
    t.count++;
  };
  return {
    measure(frame) {
      for (let y = 0; y + 4 <= height; y += 4) {
        // A band of wide squares is whole only where WIDE rows fit below its top.
        const band = Math.floor(y / WIDE);
        const inBand = (band + 1) * WIDE <= height;
        if (inBand && y % WIDE === 0) {
          wy.fill(0);
          wu.fill(0);
          wv.fill(0);
        }
        for (let x = 0; x + 4 <= width; x += 4) {
          let sy = 0;
          for (let dy = 0; dy < 4; dy++) {
            const row = (y + dy) * width + x;
            sy += byteAt(frame, row) + byteAt(frame, row + 1);
            sy += byteAt(frame, row + 2) + byteAt(frame, row + 3);
          }
          const c0 = (y >> 1) * cw + (x >> 1);
          const su =
            byteAt(frame, uAt + c0) +
            byteAt(frame, uAt + c0 + 1) +
            byteAt(frame, uAt + c0 + cw) +
            byteAt(frame, uAt + c0 + cw + 1);
          const sv =
            byteAt(frame, vAt + c0) +
            byteAt(frame, vAt + c0 + 1) +
            byteAt(frame, vAt + c0 + cw) +
            byteAt(frame, vAt + c0 + cw + 1);
          count(fine, sy / 16, su / 4 - 128, sv / 4 - 128);
          const col = Math.floor(x / WIDE);
          if (inBand && col < across) {
            wy[col] = f64At(wy, col) + sy;
            wu[col] = f64At(wu, col) + su;
            wv[col] = f64At(wv, col) + sv;
          }
        }
        if (inBand && (y + 4) % WIDE === 0) {
          const n = SPAN * SPAN;
          for (let col = 0; col < across; col++)
            count(
              wide,
              f64At(wy, col) / (16 * n),
              f64At(wu, col) / (4 * n) - 128,
              f64At(wv, col) / (4 * n) - 128,
            );
        }
      }
    },
    result(noise) {
      // A picture smaller than one wide square keeps its 4-px reading.
      return isGrainy(noise) && wide.count > 0 ? readingOf(wide, true) : readingOf(fine, false);
    },
  };
}
