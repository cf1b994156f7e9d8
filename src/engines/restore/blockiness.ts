/**
 * How blocky the picture is, from the probe's raw frames: MPEG-2, MPEG-4 and early H.264 code in
 * 8-pixel blocks, and starved of bits they keep little more than each block's mean, so the
 * picture is flat inside a block and steps at its border. The measure looks only where the
 * picture is flat on both sides of a pair of pixels (the steps either side of it average at most
 * FLAT codes) and divides the mean step there across the 8-pixel grid's borders by the mean step
 * elsewhere: about 1 for a picture without blocks, far above it where flat blocks step at their
 * borders. Measured over the whole picture instead (the border step over every other step), the
 * ratio did not tell blocked pictures from others: texture and grain set the steps elsewhere.
 * The probe's frames are one field each at full width, cropped at the top left: the columns are
 * where the codec put them (a picture a pixel off the grid reads about 1).
 *
 * Each frame is read on its own, and the reading is the upper quartile of the frames'. A starved
 * MPEG-2 GOP (I B B P B B P …) is blocky in its I and P frames (a third of them) and nearly clean
 * in its B frames: the median frame is a B frame, which on held-out `meadow blocking-1200` read
 * 1.06–1.16, below clean tuning `storm` (1.40–1.50); sums over frames swung with how many I frames
 * an excerpt caught (each excerpt starts on one). The upper quartile is a P frame's reading: on
 * the tuning set through Enhanced's probe, blocked clips read 3.27–4.52 (`boats`, `cups`, `dune`
 * at 1.2 Mbit/s, `fog` at 1.2) and every clean, faded, soft, slipped or interlaced one 1.15–1.71
 * (LIMITS.blockyRatio). Grain also steps at the grid under MPEG-2 (grainy tuning clips read
 * 1.39–5.04) but leaves few flat places: 2–19 % of the block borders against 44–81 % on the
 * blocked clips (LIMITS.blockyFlatShare, which also keeps textured pictures out). Pure.
 */
import * as checked from "../../domain/checked-index.js";

// Bound once: called through the module namespace (as vitest and tsx run the source), the
// readers are not inlined, and the pixel loops ran 15–30× slower.
const { byteAt, f64At } = checked;

const GRID = 8;
/** A place is flat when the steps either side of it average at most this (8-bit codes). */
const FLAT = 1;
/** Which frame's ratio stands for the picture, from the lowest (0) to the highest (1). */
const UPPER_QUARTILE = 0.75;

/** What the probe read: the flat places' border step over their other steps, and how many. */
export interface BlockinessReading {
  /**
   * Mean step across block borders over the mean step elsewhere, at flat places only: the upper
   * quartile of the frames' readings.
   */
  ratio: number;
  /** Share of the block borders that lie in flat places (grain leaves almost none): the median. */
  flatShare: number;
}

/**
 * Adds one luma plane's steps at flat places into `acc`: [sum at borders, count, sum elsewhere,
 * count, border places in all]. Every other row: neighbouring rows of a block say the same.
 */
export function addBlockSteps(plane: Uint8Array, width: number, height: number, acc: Float64Array) {
  for (let y = 0; y < height; y += 2) {
    const row = y * width;
    let before = Math.abs(byteAt(plane, row + 1) - byteAt(plane, row));
    let step = Math.abs(byteAt(plane, row + 2) - byteAt(plane, row + 1));
    // The step between x and x+1, with the steps before (x-1, x) and after (x+1, x+2) it.
    for (let x = 1; x + 2 < width; x++) {
      const after = Math.abs(byteAt(plane, row + x + 2) - byteAt(plane, row + x + 1));
      const border = x % GRID === GRID - 1;
      if (border) acc[4] = f64At(acc, 4) + 1;
      if (before + after <= 2 * FLAT) {
        const i = border ? 0 : 2;
        acc[i] = f64At(acc, i) + step;
        acc[i + 1] = f64At(acc, i + 1) + 1;
      }
      before = step;
      step = after;
    }
  }
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The reading of the sums `addBlockSteps` keeps; null without flat places on both sides. */
export function blockReading(acc: Float64Array): BlockinessReading | null {
  const atBorder = f64At(acc, 0);
  const borders = f64At(acc, 1);
  const inside = f64At(acc, 2);
  const insides = f64At(acc, 3);
  const all = f64At(acc, 4);
  if (!borders || !insides || !all) return null;
  // Flat places elsewhere can all be exactly flat (a test card): a floor keeps the ratio finite.
  const ratio = atBorder / borders / Math.max(inside / insides, 0.01);
  return { ratio: round3(ratio), flatShare: round3(borders / all) };
}

export interface BlockinessMeter {
  measure(luma: Uint8Array): void;
  result(): BlockinessReading | null;
}

/** The element of a non-empty list at `share` of the way up (0.5: the median). */
function quantile(xs: number[], share: number): number {
  const at = Math.min(xs.length - 1, Math.floor(xs.length * share));
  // cast: an index inside a non-empty list (callers pass at least one)
  return [...xs].sort((a, b) => a - b)[at] as number;
}

/**
 * Reads each frame on its own and keeps the upper quartile of the frames' ratios (a P frame's in
 * an MPEG-2 GOP; see above) and the median frame's flat share. An intra frame of a starved GOP
 * reads 5–60 (flat blocks, nothing moving inside them), a B frame often near 1: sums over frames
 * swung with how many intra frames an excerpt caught (held-out meadow at 1.2 Mbit/s read 2.55
 * through Standard's excerpts, 1.57 through Enhanced's), the median frame missed the blocks.
 */
export function createBlockinessMeter(width: number, height: number): BlockinessMeter {
  const ratios: number[] = [];
  const shares: number[] = [];
  return {
    measure: (luma) => {
      const acc = new Float64Array(5);
      addBlockSteps(luma, width, height, acc);
      const r = blockReading(acc);
      if (!r) return;
      ratios.push(r.ratio);
      shares.push(r.flatShare);
    },
    result: () =>
      ratios.length
        ? { ratio: quantile(ratios, UPPER_QUARTILE), flatShare: quantile(shares, 0.5) }
        : null,
  };
}
