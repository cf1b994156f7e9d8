/**
 * Studio Max's motion-following temporal average of the luma (pure). Coarse grain survives
 * non-local means within one frame (too few grains in a patch to tell them from the picture);
 * the same place in the frames either side holds other grains, so averaging along the motion
 * takes out what one frame cannot. Measured outside the engine first (bench/quality/
 * motion-average.ts, docs/restore.md "A motion-following average"): +1.4 to +1.6 dB of luma on
 * the tuning set's 3-px grain at SD, +0.15 to +1.1 on finer grain and tape.
 *
 * For every 8×8 block (every 4 px, overlapping) of frame t, the best match is searched on the
 * guide (the non-local-means copy: grain would decide the match on the noisy picture) in t±1
 * (every offset within ±3 px) and in t±2 (±2 px around twice t±1's offset). The noisy pixels
 * of each match are averaged with t's own, each weighted exp(−msd / threshold²) by how far
 * its guide block is from t's, and overlapping blocks are averaged. A neighbour whose blocks
 * mostly match badly (a cut, a pan faster than the search) is left out whole.
 */

/** Block size and spacing, px: 8×8 every 4 px, as measured. */
export const BLOCK = 8;
export const STEP = 4;
/**
 * Full search in t±1 (±3 px); t±2 around twice that vector (±2 px). ±3 rather than the
 * experiment's ±4: fewer far offsets where flat, grainy places match anything (docs/restore.md,
 * "A motion-following average"). The engine's averageLuma on 14 frames at SD (an nlmeans guide,
 * luma PSNR of frames 3–12 after the second pass at 0.4×), ±4 → ±3: tuning `boats grain-10-x3`
 * 27.31 → 27.52 dB at 0.89 → 0.69 CPU s a frame, `forest grain-10-x3` 25.50 → 25.67 at 0.97 →
 * 0.61, `dune tape-b` 23.39 → 23.41 at 0.85 → 0.65; the bench (Studio Max's 1080p, luma) `dune
 * tape-b` 30.76 → 30.81, `boats grain-10-x3` 26.82 → 27.01, held out `moss grain-10-x3` 27.33 →
 * 27.50. A pan faster than 3 px a frame at SD is matched worse in t±1 (and weighs less), never
 * smeared.
 */
export const NEAR_RANGE = 3;
export const FAR_RANGE = 2;
/** A match weighing less adds nothing worth its cost (the experiment's cut-off). */
const MIN_WEIGHT = 0.05;
/**
 * A neighbour frame whose median block matches by a mean squared difference above this
 * (≈ 25 codes RMS on the guide) is another shot or moves beyond the search: it is left out,
 * with the frame beyond it. Grain on the guide leaves the same picture's matches far below it.
 */
export const CUT_MSD = 625;

/** One frame's luma planes: the noisy picture and its denoised guide, `width × height` each. */
export interface LumaPair {
  noisy: Uint8Array;
  guide: Uint8Array;
}

export interface AverageOptions {
  width: number;
  height: number;
  /** The weight's width in 8-bit codes: exp(−msd / threshold²). */
  threshold: number;
}

/** Block origins along one axis: every STEP px, and the last one flush with the edge. */
function origins(size: number): number[] {
  const out: number[] = [];
  for (let p = 0; p + BLOCK <= size; p += STEP) out.push(p);
  const last = size - BLOCK;
  if (last >= 0 && out[out.length - 1] !== last) out.push(last);
  return out;
}

/**
 * The offsets within ±range, nearest first: the true match is usually near the prediction, and
 * once a small sum is found every other offset stops after a row or two (the early exit). In
 * row order from a corner the smooth guide let most offsets run to the end.
 */
function nearestFirst(range: number): Int8Array {
  const offsets: Array<[number, number]> = [];
  for (let dy = -range; dy <= range; dy++) {
    for (let dx = -range; dx <= range; dx++) offsets.push([dx, dy]);
  }
  offsets.sort((a, b) => a[0] * a[0] + a[1] * a[1] - (b[0] * b[0] + b[1] * b[1]));
  return Int8Array.from(offsets.flat());
}
const NEAR_OFFSETS = nearestFirst(NEAR_RANGE);
const FAR_OFFSETS = nearestFirst(FAR_RANGE);

/**
 * Best offset of the block at (bx, by) of `g0` in `g1`, among `offsets` (dx, dy pairs) around
 * (px, py); returns it and the sum of squared differences in `found`.
 */
function match(
  g0: Uint8Array,
  g1: Uint8Array,
  width: number,
  height: number,
  bx: number,
  by: number,
  px: number,
  py: number,
  offsets: Int8Array,
  found: Int32Array,
): void {
  let best = 0x7fffffff;
  let bdx = 0;
  let bdy = 0;
  for (let k = 0; k < offsets.length; k += 2) {
    // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
    const dx = px + (offsets[k] as number);
    // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
    const dy = py + (offsets[k + 1] as number);
    const x = bx + dx;
    const y = by + dy;
    if (x < 0 || y < 0 || x + BLOCK > width || y + BLOCK > height) continue;
    let s = 0;
    for (let j = 0; j < BLOCK && s < best; j++) {
      const o0 = (by + j) * width + bx;
      const o1 = (y + j) * width + x;
      for (let i = 0; i < BLOCK; i++) {
        // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
        const d = (g0[o0 + i] as number) - (g1[o1 + i] as number);
        s += d * d;
      }
    }
    // Strictly less: a sum cut short at the best so far is not a tie.
    if (s < best) {
      best = s;
      bdx = dx;
      bdy = dy;
    }
  }
  found[0] = bdx;
  found[1] = bdy;
  found[2] = best;
}

/** Per block: the matched offset (dx, dy) and msd of one neighbour frame; null: no match. */
interface Matches {
  dx: Int8Array;
  dy: Int8Array;
  msd: Float32Array;
}

function matchFrame(
  centre: Uint8Array,
  other: Uint8Array,
  opts: AverageOptions,
  xs: number[],
  ys: number[],
  predicted: Matches | null,
): Matches {
  const n = xs.length * ys.length;
  const out: Matches = { dx: new Int8Array(n), dy: new Int8Array(n), msd: new Float32Array(n) };
  const found = new Int32Array(3);
  let k = 0;
  for (const by of ys) {
    for (const bx of xs) {
      // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
      const px = predicted ? 2 * (predicted.dx[k] as number) : 0;
      // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
      const py = predicted ? 2 * (predicted.dy[k] as number) : 0;
      const offsets = predicted ? FAR_OFFSETS : NEAR_OFFSETS;
      match(centre, other, opts.width, opts.height, bx, by, px, py, offsets, found);
      // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
      out.dx[k] = found[0] as number;
      // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
      out.dy[k] = found[1] as number;
      // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
      out.msd[k] = (found[2] as number) / (BLOCK * BLOCK);
      k++;
    }
  }
  return out;
}

function median(values: Float32Array): number {
  const sorted = Float32Array.from(values).sort();
  return sorted[sorted.length >> 1] ?? 0;
}

/**
 * The averaged luma of the centre frame of `window` (five frames, t−2 … t+2; null where the
 * clip has none: its first and last two frames). Frames smaller than one block come back as
 * they are.
 */
export function averageLuma(
  window: ReadonlyArray<LumaPair | null>,
  opts: AverageOptions,
): Uint8Array {
  const centre = window[2];
  if (!centre) throw new Error("averageLuma needs the centre frame");
  const { width, height, threshold } = opts;
  const xs = origins(width);
  const ys = origins(height);
  if (xs.length === 0 || ys.length === 0) return Uint8Array.from(centre.noisy);
  const acc = new Float32Array(width * height);
  const weights = new Float32Array(width * height);
  const add = (from: Uint8Array, w: number, bx: number, by: number, dx: number, dy: number) => {
    for (let j = 0; j < BLOCK; j++) {
      const o = (by + j) * width + bx;
      const src = (by + dy + j) * width + bx + dx;
      for (let i = 0; i < BLOCK; i++) {
        // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
        acc[o + i] = (acc[o + i] as number) + w * (from[src + i] as number);
        // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
        weights[o + i] = (weights[o + i] as number) + w;
      }
    }
  };
  for (const by of ys) for (const bx of xs) add(centre.noisy, 1, bx, by, 0, 0);
  const inv = 1 / (threshold * threshold);
  for (const side of [1, -1]) {
    let near: Matches | null = null;
    for (const step of [1, 2]) {
      const other = window[2 + side * step];
      if (!other) break;
      const m = matchFrame(centre.guide, other.guide, opts, xs, ys, near);
      // Another shot, or motion beyond the search: this side adds nothing (nor the frame beyond).
      if (median(m.msd) > CUT_MSD) break;
      near = m;
      let k = 0;
      for (const by of ys) {
        for (const bx of xs) {
          // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
          const w = Math.exp(-(m.msd[k] as number) * inv);
          // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
          if (w >= MIN_WEIGHT) add(other.noisy, w, bx, by, m.dx[k] as number, m.dy[k] as number);
          k++;
        }
      }
    }
  }
  const out = new Uint8Array(width * height);
  for (let p = 0; p < out.length; p++) {
    // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
    const w = weights[p] as number;
    // A weighted mean of 0–255 codes, so +0.5 and the array's truncation round it in range.
    // cast: typed arrays read within their bounds (noUncheckedIndexedAccess)
    out[p] = w > 0 ? (acc[p] as number) / w + 0.5 : (centre.noisy[p] as number);
  }
  return out;
}
