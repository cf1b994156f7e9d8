/**
 * Whether the picture was enlarged from a coarser grid: a video scaled up from a smaller frame
 * (half the width, two thirds) keeps the samples it was interpolated from, so each row is, to
 * within the coding noise, a linear interpolation of width / k samples at one alignment of that
 * coarser grid, and fits it far better than the same grid shifted by a whole pixel of the
 * picture. A picture soft by nature (haze, focus, a smooth scene) has lost its fine detail too,
 * but at no grid: every alignment fits it alike. That is what the edge measure (blur.ts) could
 * not tell apart: a lost resolution leaves a few sharp-looking edges and reads like a clean soft
 * scene. On the bench, pictures that lost resolution read 0.05-0.48, pictures at their own
 * resolution 0.71-0.98 (limits.ts upscaledGridContrast).
 *
 * For each factor k and each sub-pixel offset of its grid, each row's least-squares residual
 * against the linear interpolation of round(width / k) samples (a tridiagonal system, solved in
 * one pass) is summed over the most detailed 5 % of each frame's 48-px stretches of rows
 * (on flat places every alignment fits within the coding noise), at every whole-pixel shift within its
 * period (2 pixels for 2×, 3 for 1.5×); the reading is the best shift's residual over the
 * others' mean. Rows only: the probe reads one field (frame-analysis.ts), where a vertical
 * enlargement by 2 leaves no grid. Pure.
 */
import * as checked from "../../domain/checked-index.js";

// Bound once: called through the module namespace the readers are not inlined (blur.ts).
const { byteAt } = checked;

/** Factors read, each with its period in picture pixels (the grid repeats every period). */
const FACTORS = [
  { factor: 2, period: 2 },
  { factor: 1.5, period: 3 },
] as const;
/** Offsets of the grid within a picture pixel: a crop or another scaler's alignment moves it. */
const SUB_OFFSETS = [0, 0.25, 0.5, 0.75];
/**
 * Every ROW_STEP-th row of the field is read, from ROW_MARGIN to the last but ROW_MARGIN, and at
 * most MAX_ROWS of them (a taller field is read more sparsely): the cost grows with the width only.
 */
const ROW_STEP = 4;
const MAX_ROWS = 72;
const ROW_MARGIN = 4;
/** Columns this close to either side are left out of the residual (the grid's ends clamp). */
const EDGE = 8;
/**
 * Rows are cut into segments this wide; the most detailed DETAILED_SHARE of them are read: the
 * grid shows where the picture has detail. Tuning clips, the lost-resolution cells against the
 * lowest cell at its own resolution (the bench's coarse grain, made on a coarser grid): the top
 * quarter read 0.25 and 0.62 against 0.69, the top 10 % 0.20 and 0.52 against 0.73, the top 5 %
 * 0.18 and 0.43 against 0.76.
 */
const SEGMENT = 48;
const DETAILED_SHARE = 0.05;
/** Residual per pixel (8-bit codes²) under which the rows say nothing: a flat picture. */
const MIN_RESIDUAL = 0.02;
/** Frames read at most: a sample of the excerpts is enough, and each costs ~15 ms at SD. */
const MAX_FRAMES = 12;

/** What the grid reading found: the factor that fits best, and how much better it fits. */
export interface GridReading {
  /** The enlargement whose grid fits the rows best (2 or 1.5). */
  factor: number;
  /** Its best alignment's residual over the other alignments' mean: ~1 on no grid, ≪ 1 on it. */
  contrast: number;
}

export interface GridMeter {
  measure(luma: Uint8Array): void;
  result(): GridReading | null;
}

/** One factor's readings: its residual sums per alignment, and the alignments' fits. */
interface Fit {
  factor: number;
  period: number;
  /** Residual sums, [sub offset][whole-pixel shift]. */
  sums: Float64Array[];
  /** Pixels summed into each of the sums. */
  pixels: number;
  /** The least-squares fit of each alignment, [sub offset][whole-pixel shift]: row-independent. */
  alignments: GridFit[][];
}

/** Reads planes of `width`×`height` luma, frame by frame (see the module comment). */
export function createGridMeter(width: number, height: number): GridMeter {
  // Widths under the minimum are never read (measure): no fit is made for them.
  const readable = width >= 4 * EDGE + SEGMENT && height > 2 * ROW_MARGIN;
  const fits: Fit[] = FACTORS.map(({ factor, period }) => {
    const samples = Math.round(width / factor / 2) * 2;
    return {
      factor,
      period,
      sums: SUB_OFFSETS.map(() => new Float64Array(period)),
      pixels: 0,
      alignments: !readable
        ? []
        : SUB_OFFSETS.map((sub) =>
            Array.from({ length: period }, (_, shift) =>
              gridFit(width, samples, ((shift + sub) * samples) / width),
            ),
          ),
    };
  });
  const row = new Float64Array(width);
  const scratch = { rhs: new Float64Array(width), sol: new Float64Array(width) };
  const segments = Math.floor((width - 2 * EDGE) / SEGMENT);
  const rowStep = Math.max(ROW_STEP, Math.ceil((height - 2 * ROW_MARGIN) / MAX_ROWS));
  const segmentSums = new Float64Array(segments);
  const combos = fits.reduce((n, f) => n + f.period * SUB_OFFSETS.length, 0);
  let frames = 0;
  return {
    measure(luma) {
      if (frames >= MAX_FRAMES || !readable) return;
      frames++;
      // Each row's residual per segment at every (factor, offset, shift); the frame's most
      // detailed segments (by their residual over every alignment alike, so no alignment is
      // favoured by the choice) are summed: on flat places every alignment fits to within the
      // coding noise, which would pull the contrast of a smooth picture towards 1.
      const perSegment: Float64Array[] = [];
      for (let y = ROW_MARGIN; y < height - ROW_MARGIN; y += rowStep) {
        const base = y * width;
        for (let x = 0; x < width; x++) row[x] = byteAt(luma, base + x);
        const rowSegments = Array.from({ length: segments }, () => new Float64Array(combos));
        let combo = 0;
        for (const fit of fits) {
          for (const shifts of fit.alignments) {
            for (const alignment of shifts) {
              residuals(alignment, row, scratch, segmentSums);
              for (let g = 0; g < segments; g++) {
                // cast: g < segments, the length of both
                (rowSegments[g] as Float64Array)[combo] = segmentSums[g] as number;
              }
              combo++;
            }
          }
        }
        perSegment.push(...rowSegments);
      }
      addDetailed(perSegment, fits);
    },
    result: () => (frames === 0 ? null : bestGrid(fits)),
  };
}

/**
 * Adds the frame's most detailed segments (their mean residual over every alignment in the top
 * DETAILED_SHARE) into each fit's sums; `perSegment` holds each segment's residual per
 * (factor, offset, shift), in the order the fits list them.
 */
function addDetailed(perSegment: Float64Array[], fits: Fit[]) {
  const detail = perSegment.map((r) => r.reduce((a, b) => a + b, 0) / r.length);
  const sorted = [...detail].sort((a, b) => b - a);
  const floor = sorted[Math.floor(sorted.length * DETAILED_SHARE)] ?? 0;
  perSegment.forEach((r, i) => {
    // cast: i indexes perSegment, and detail has one value per segment
    if ((detail[i] as number) <= floor) return;
    let combo = 0;
    for (const fit of fits) {
      fit.pixels += SEGMENT;
      for (const sums of fit.sums) {
        for (let shift = 0; shift < fit.period; shift++) {
          sums[shift] = (sums[shift] ?? 0) + (r[combo] ?? 0);
          combo++;
        }
      }
    }
  });
}

/** The factor and alignment whose residual stands out most from the other shifts'. */
function bestGrid(fits: Fit[]): GridReading | null {
  let best: GridReading | null = null;
  for (const fit of fits) {
    for (const sums of fit.sums) {
      const all = [...sums];
      const min = Math.min(...all);
      const others = all.filter((_, i) => i !== all.indexOf(min));
      const mean = others.reduce((a, b) => a + b, 0) / others.length;
      // Under rounding's own error (1/12 of a code², squared): a flat picture, nothing to read.
      if (!(mean > MIN_RESIDUAL * fit.pixels)) continue;
      const contrast = Math.round((min / mean) * 1000) / 1000;
      if (!best || contrast < best.contrast) best = { factor: fit.factor, contrast };
    }
  }
  return best;
}

/**
 * The least-squares fit of a row to a linear interpolation from `m` samples whose grid sits at
 * u = (x + 0.5) · m / n − 0.5 + offset (in samples), clamped at the ends as scalers clamp: which
 * two samples each pixel weighs and how, and the normal equations factored once (they are
 * tridiagonal, each pixel weighing two neighbouring samples: Thomas's algorithm). Only the
 * right-hand side depends on the row (`residuals`).
 */
interface GridFit {
  m: number;
  left: Int32Array;
  weight: Float64Array;
  lower: Float64Array;
  /** The forward sweep's c′ and its denominators. */
  upperPrime: Float64Array;
  denom: Float64Array;
}

function gridFit(n: number, m: number, offset: number): GridFit {
  const left = new Int32Array(n);
  const weight = new Float64Array(n);
  const lower = new Float64Array(m);
  const diag = new Float64Array(m);
  const upper = new Float64Array(m);
  for (let x = 0; x < n; x++) {
    const u = Math.min(m - 1, Math.max(0, ((x + 0.5) * m) / n - 0.5 + offset));
    const j = Math.min(m - 2, Math.floor(u));
    const t = u - j;
    const p = 1 - t;
    left[x] = j;
    weight[x] = t;
    diag[j] = at(diag, j) + p * p;
    diag[j + 1] = at(diag, j + 1) + t * t;
    upper[j] = at(upper, j) + p * t;
    lower[j + 1] = at(lower, j + 1) + p * t;
  }
  // A tiny ridge keeps the system regular where a sample weighs no pixel.
  const upperPrime = new Float64Array(m);
  const denom = new Float64Array(m);
  denom[0] = at(diag, 0) + 1e-9;
  upperPrime[0] = at(upper, 0) / at(denom, 0);
  for (let j = 1; j < m; j++) {
    denom[j] = at(diag, j) + 1e-9 - at(lower, j) * at(upperPrime, j - 1);
    upperPrime[j] = at(upper, j) / at(denom, j);
  }
  return { m, left, weight, lower, upperPrime, denom };
}

/** Fills `out` with one row's squared residual against `fit` over each SEGMENT-wide stretch. */
function residuals(
  fit: GridFit,
  row: Float64Array,
  scratch: { rhs: Float64Array; sol: Float64Array },
  out: Float64Array,
): void {
  const { m, left, weight, lower, upperPrime, denom } = fit;
  const { rhs, sol } = scratch;
  rhs.fill(0, 0, m);
  for (let x = 0; x < row.length; x++) {
    const j = at(left, x);
    const t = at(weight, x);
    const v = at(row, x);
    rhs[j] = at(rhs, j) + (1 - t) * v;
    rhs[j + 1] = at(rhs, j + 1) + t * v;
  }
  rhs[0] = at(rhs, 0) / at(denom, 0);
  for (let j = 1; j < m; j++) rhs[j] = (at(rhs, j) - at(lower, j) * at(rhs, j - 1)) / at(denom, j);
  sol[m - 1] = at(rhs, m - 1);
  for (let j = m - 2; j >= 0; j--) sol[j] = at(rhs, j) - at(upperPrime, j) * at(sol, j + 1);
  for (let g = 0; g < out.length; g++) {
    let sum = 0;
    const from = EDGE + g * SEGMENT;
    for (let x = from; x < from + SEGMENT; x++) {
      const j = at(left, x);
      const t = at(weight, x);
      const d = at(row, x) - ((1 - t) * at(sol, j) + t * at(sol, j + 1));
      sum += d * d;
    }
    out[g] = sum;
  }
}

/** A typed array's element; the index is in range by construction in the loops above. */
function at(a: Float64Array | Int32Array, i: number): number {
  // cast: every index above is within the array's length by construction
  return a[i] as number;
}
