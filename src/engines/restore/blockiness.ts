/**
 * How blocky the picture is, from the probe's raw frames: MPEG-2, MPEG-4 and early H.264 code in
 * 8-pixel blocks, and starved of bits they leave a step at every block border. The measure is the
 * mean horizontal step across the 8-pixel grid's borders over the mean step everywhere else:
 * 1 for a picture without blocks, above it where the borders stand out. Rows are whole in the
 * probe's fields, so the grid's columns are where the codec put them. Pure.
 */
import * as checked from "../../domain/checked-index.js";

// Bound once: called through the module namespace (as vitest and tsx run the source), the
// readers are not inlined, and the pixel loops ran 15–30× slower.
const { byteAt, f64At } = checked;

const GRID = 8;

/** Adds one luma plane's steps: [sum at borders, count, sum elsewhere, count] into `acc`. */
export function addBlockSteps(plane: Uint8Array, width: number, height: number, acc: Float64Array) {
  for (let y = 0; y < height; y += 2) {
    const row = y * width;
    for (let x = 0; x + 1 < width; x++) {
      const step = Math.abs(byteAt(plane, row + x + 1) - byteAt(plane, row + x));
      const border = x % GRID === GRID - 1 ? 0 : 2;
      acc[border] = f64At(acc, border) + step;
      acc[border + 1] = f64At(acc, border + 1) + 1;
    }
  }
}

/** The four sums `addBlockSteps` keeps in `acc`, by name. */
function stepSums(acc: Float64Array) {
  return {
    atBorder: f64At(acc, 0),
    borders: f64At(acc, 1),
    inside: f64At(acc, 2),
    insides: f64At(acc, 3),
  };
}

/** The ratio of the mean step at block borders to the mean step elsewhere; null without steps. */
export function blockRatio(acc: Float64Array): number | null {
  const { atBorder, borders, inside, insides } = stepSums(acc);
  if (!borders || !insides || inside <= 0) return null;
  return Math.round((atBorder / borders / (inside / insides)) * 1000) / 1000;
}

/** How much larger the mean step at block borders is than elsewhere, 8-bit codes. */
export function blockExcess(acc: Float64Array): number | null {
  const { atBorder, borders, inside, insides } = stepSums(acc);
  if (!borders || !insides) return null;
  return Math.round((atBorder / borders - inside / insides) * 1000) / 1000;
}

export interface BlockinessMeter {
  measure(luma: Uint8Array): void;
  result(): number | null;
}

export function createBlockinessMeter(width: number, height: number): BlockinessMeter {
  const acc = new Float64Array(4);
  return {
    measure: (luma) => addBlockSteps(luma, width, height, acc),
    result: () => blockRatio(acc),
  };
}
