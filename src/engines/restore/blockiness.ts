/**
 * How blocky the picture is, from the probe's raw frames: MPEG-2, MPEG-4 and early H.264 code in
 * 8-pixel blocks, and starved of bits they keep little more than each block's mean, so the
 * picture is flat inside a block and steps at its border. The measure looks only where the
 * picture is flat on both sides of a pair of pixels (the steps either side of it average at most
 * FLAT codes) and divides the mean step there across the 8-pixel grid's borders by the mean step
 * elsewhere: about 1 for a picture without blocks, far above it where flat blocks step at their
 * borders. Measured over the whole picture instead (the border step over every other step), the
 * ratio did not tell blocked pictures from others: texture and grain set the steps elsewhere.
 * Rows are whole in the probe's fields, so the grid's columns are where the codec put them.
 *
 * Not acted on (docs/restore.md, "At no quality: deblocking"): through the probe's excerpts the
 * reading still moves with which frames an excerpt catches (tuning cups at 1.2 Mbit/s: 1.49
 * through Standard's, 1.69 through Enhanced's; clean storm 1.58), so no threshold keeps the
 * clean clips out with margin and lets the blocked ones in at every quality. Pure.
 */
import * as checked from "../../domain/checked-index.js";

// Bound once: called through the module namespace (as vitest and tsx run the source), the
// readers are not inlined, and the pixel loops ran 15–30× slower.
const { byteAt, f64At } = checked;

const GRID = 8;
/** A place is flat when the steps either side of it average at most this (8-bit codes). */
const FLAT = 1;

/** What the probe read: the flat places' border step over their other steps, and how many. */
export interface BlockinessReading {
  /** Mean step across block borders over the mean step elsewhere, at flat places only. */
  ratio: number;
  /** Share of the block borders that lie in flat places (grain leaves almost none). */
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

// cast: the middle element of a non-empty list (callers pass at least one)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

/**
 * Reads each frame on its own and keeps the median frame's figures: an intra frame of a starved
 * GOP reads 8–100 (flat blocks, nothing moving inside them), the predicted frames 1–9, so sums
 * over frames swung with how many intra frames an excerpt caught (held-out meadow at 1.2 Mbit/s
 * read 2.55 through Standard's excerpts, 1.57 through Enhanced's).
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
    result: () => (ratios.length ? { ratio: median(ratios), flatShare: median(shares) } : null),
  };
}
