/**
 * Noise measured where it is: the difference between two consecutive frames after motion is
 * compensated, in the blocks that line up best. Picture detail that moves with the camera is
 * matched away, while noise is new in every frame and never matches: var(B − A) = σ_A² + σ_B²,
 * so σ ≈ √(var/2). Pure; the probe hands over pairs of consecutive frames (one field each, so
 * combing never reads as noise).
 *
 * Motion: a global shift per pair (a pan) found on a 4× smaller copy, then per 16×16 block the
 * best of the whole-pixel shifts around standing still and around the pan, each at the four
 * half-pixel phases (a slow pan moves fractions of a pixel, and a texture half a pixel off does
 * not match). Half pixels are interpolated with H.264's 6-tap filter, which keeps fine texture
 * (bilinear halves it at the finest scale, and the loss read as noise on clean foliage).
 */
import * as checked from "../../domain/checked-index.js";

// Bound once: called through the module namespace (as vitest and tsx run the source), the
// readers are not inlined, and the pixel loops ran 15–30× slower.
const { at, byteAt, f32At, f64At } = checked;

const BLOCK = 16;
/** Search radius around each candidate, in whole pixels. */
const LOCAL = 1;
/** Search radius of the global shift on the 4× smaller copy (±32 px at full size). */
const GLOBAL = 8;
/** Margin kept from the frame's edge by every block (search plus the interpolator's taps). */
const EDGE = 4;

/** A 4× smaller copy (4×4 means) of a plane, for the global search. */
function shrink4(p: Uint8Array, w: number, h: number): { p: Float32Array; w: number; h: number } {
  const sw = w >> 2;
  const sh = h >> 2;
  const out = new Float32Array(sw * sh);
  for (let y = 0; y < sh; y++) {
    for (let x = 0; x < sw; x++) {
      let s = 0;
      for (let dy = 0; dy < 4; dy++) {
        const row = (4 * y + dy) * w + 4 * x;
        s += byteAt(p, row) + byteAt(p, row + 1);
        s += byteAt(p, row + 2) + byteAt(p, row + 3);
      }
      out[y * sw + x] = s / 16;
    }
  }
  return { p: out, w: sw, h: sh };
}

/** The whole-pixel shift (dx, dy) that best maps `a` onto `b` (mean absolute difference, 4× grid). */
export function globalShift(a: Uint8Array, b: Uint8Array, w: number, h: number): [number, number] {
  const sa = shrink4(a, w, h);
  const sb = shrink4(b, w, h);
  let best: [number, number] = [0, 0];
  let bestCost = Number.POSITIVE_INFINITY;
  const m = GLOBAL;
  for (let dy = -m; dy <= m; dy++) {
    for (let dx = -m; dx <= m; dx++) {
      let cost = 0;
      let n = 0;
      for (let y = m; y < sb.h - m; y += 2) {
        for (let x = m; x < sb.w - m; x += 2) {
          const d = f32At(sb.p, y * sb.w + x) - f32At(sa.p, (y + dy) * sa.w + x + dx);
          cost += Math.abs(d);
          n++;
        }
      }
      if (n && cost / n < bestCost) {
        bestCost = cost / n;
        best = [dx * 4, dy * 4];
      }
    }
  }
  return best;
}

/** H.264's half-sample filter: [1 −5 20 20 −5 1] / 32 (written out in halfRight / halfDown). */
const TAPS = Float64Array.of(1, -5, 20, 20, -5, 1);
/** How much of a pixel's noise variance one 6-tap half step keeps: Σ taps² / 32². */
const HALF_SHARE = TAPS.reduce((s, t) => s + t * t, 0) / 1024;

// The taps are written out below, not looped over: the loop cost a third of the probe's whole
// motion search (480p, 15 pairs). Every sum is of integers or of 1/32 steps far inside a
// double's precision, so any order gives the same bits.

/** `src` moved half a pixel right by the 6-tap filter (2 columns left, 3 right unfiltered: 0). */
function halfRight(src: Uint8Array, w: number, h: number): Float32Array {
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 2; x < w - 3; x++) {
      const i = row + x;
      const s =
        byteAt(src, i - 2) +
        byteAt(src, i + 3) -
        5 * (byteAt(src, i - 1) + byteAt(src, i + 2)) +
        20 * (byteAt(src, i) + byteAt(src, i + 1));
      out[i] = s / 32;
    }
  }
  return out;
}

/** `src` moved half a pixel down by the 6-tap filter (2 rows at the top, 3 at the bottom: 0). */
function halfDown(src: Float32Array, w: number, h: number): Float32Array {
  const out = new Float32Array(w * h);
  for (let y = 2; y < h - 3; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const s =
        f32At(src, i - 2 * w) +
        f32At(src, i + 3 * w) -
        5 * (f32At(src, i - w) + f32At(src, i + 2 * w)) +
        20 * (f32At(src, i) + f32At(src, i + w));
      out[i] = s / 32;
    }
  }
  return out;
}

/**
 * `a` at the four half-pixel phases (whole; right; down; right and down), each with the share
 * of a pixel's noise variance it keeps. The right-shifted copy serves two of them.
 */
function halfPhases(a: Uint8Array, w: number, h: number) {
  const right = halfRight(a, w, h);
  return [
    { plane: Float32Array.from(a), share: 1 },
    { plane: right, share: HALF_SHARE },
    { plane: halfDown(Float32Array.from(a), w, h), share: HALF_SHARE },
    { plane: halfDown(right, w, h), share: HALF_SHARE * HALF_SHARE },
  ];
}

/**
 * Residual variance of the block at (bx, by) of `b` against `a` moved by (dx, dy) whole pixels,
 * with the blocks' mean difference removed (a flicker is not noise) — or, once it is sure to
 * exceed `limit`, any value above `limit` (Infinity). After k of the block's n pixels, with sum S
 * and sum of squares Q so far, the whole block's variance is at least (Q − S²/k) / n whatever the
 * rest holds (Cauchy–Schwarz on the rest: their squares sum to at least their sum squared over
 * their count), so a candidate that cannot beat the best so far stops there. The caller's limit
 * carries a margin far above rounding, so every candidate that could win is summed whole, as
 * before: the best (a minimum, whatever order the candidates are tried in) is the same to the bit.
 */
function residual(
  a: Float32Array,
  b: Float32Array,
  w: number,
  bx: number,
  by: number,
  dx: number,
  dy: number,
  limit: number,
): number {
  let sum = 0;
  let sq = 0;
  const n = BLOCK * BLOCK;
  for (let y = by; y < by + BLOCK; y++) {
    const rowA = (y + dy) * w + dx;
    const rowB = y * w;
    for (let x = bx; x < bx + BLOCK; x++) {
      const d = f32At(b, rowB + x) - f32At(a, rowA + x);
      sum += d;
      sq += d * d;
    }
    // Every other row: the bound's division costs little against 32 pixels.
    if ((y - by) & 1) {
      const k = (y - by + 1) * BLOCK;
      if ((sq - (sum * sum) / k) / n > limit) return Number.POSITIVE_INFINITY;
    }
  }
  return sq / n - (sum / n) ** 2;
}

/**
 * How far above the best residual so far a candidate's bound must be to stop it (code², absolute):
 * rounding moves these sums by ~1e-12 at most (256 terms under 65,025 each), so a candidate that
 * could still win is never stopped.
 */
const STOP_MARGIN = 1e-6;

/** One pair's motion search: `b` as floats, `a` at its half-pixel phases, the shifts, the blocks. */
interface Search {
  w: number;
  fb: Float32Array;
  phases: { plane: Float32Array; share: number }[];
  shifts: Array<[number, number]>;
  /** The blocks' top-left corners, x then y: those far enough from the edge for the search. */
  corners: number[];
}

function searchOf(a: Uint8Array, b: Uint8Array, w: number, h: number): Search {
  const [gx, gy] = globalShift(a, b, w, h);
  // a moved by a half pixel: phase (px, py) samples a at (x + dx + px/2, y + dy + py/2).
  // One element type throughout: the residual loop stays monomorphic (4× faster in V8).
  const centres: Array<[number, number]> =
    gx === 0 && gy === 0
      ? [[0, 0]]
      : [
          [0, 0],
          [gx, gy],
        ];
  // Every whole-pixel shift around each centre; each is tried at every half-pixel phase.
  const shifts: Array<[number, number]> = [];
  for (const [cx, cy] of centres) {
    for (let dy = cy - LOCAL; dy <= cy + LOCAL; dy++) {
      for (let dx = cx - LOCAL; dx <= cx + LOCAL; dx++) shifts.push([dx, dy]);
    }
  }
  const margin = Math.max(Math.abs(gx), Math.abs(gy)) + LOCAL + EDGE;
  const corners: number[] = [];
  for (let by = margin; by + BLOCK + margin <= h; by += BLOCK) {
    for (let bx = margin; bx + BLOCK + margin <= w; bx += BLOCK) corners.push(bx, by);
  }
  return { w, fb: Float32Array.from(b), phases: halfPhases(a, w, h), shifts, corners };
}

/**
 * The best residual (over the noise variance it holds) of the block at (bx, by) among every
 * candidate (a shift at a phase, numbered shift-major), candidate `lead` tried first; exact
 * wherever it is at most `cap`, else some value above `cap`. `won` receives the winner's number.
 */
function bestResidual(
  s: Search,
  bx: number,
  by: number,
  lead: number,
  cap: number,
  won: Int32Array,
): number {
  const count = s.shifts.length * s.phases.length;
  let best = Number.POSITIVE_INFINITY;
  won[0] = lead;
  for (let k = -1; k < count; k++) {
    if (k === lead) continue;
    const c = k < 0 ? lead : k;
    const [dx, dy] = at(s.shifts, (c / s.phases.length) | 0);
    const { plane, share } = at(s.phases, c % s.phases.length);
    const limit = Math.min(best, cap) * (1 + share) + STOP_MARGIN;
    const s2 = residual(plane, s.fb, s.w, bx, by, dx, dy, limit) / (1 + share);
    if (s2 < best) {
      best = s2;
      won[0] = c;
    }
  }
  return best;
}

/**
 * Per-block noise σ of the luma of `b` against `a` (w × h, row-major), each block at its best
 * motion (the residual divided by the noise variance it holds: both frames' at whole pixels,
 * less of `a`'s at half pixels). Blocks too near the edge for the search are skipped.
 */
export function blockSigmas(a: Uint8Array, b: Uint8Array, w: number, h: number): number[] {
  const s = searchOf(a, b, w, h);
  const out: number[] = [];
  // The candidate that won the block before is tried first: motion and phase carry over from
  // block to block, so the best is known early and most others stop after a few rows.
  const won = new Int32Array(1);
  for (let i = 0; i < s.corners.length; i += 2) {
    const best = bestResidual(
      s,
      at(s.corners, i),
      at(s.corners, i + 1),
      won[0] ?? 0,
      Infinity,
      won,
    );
    out.push(Math.sqrt(Math.max(0, best)));
  }
  return out;
}

/**
 * `quietQuantile(blockSigmas(a, b, w, h), share)`, to the bit, at a fraction of the work: only
 * the blocks at or below the quantile need their exact best. Each block's residual standing
 * still (and at the pan) is an upper bound of its best, so the quantile of those bounds, `cap`,
 * is at or above the quantile sought; every block whose best is at most `cap` is searched
 * exactly, and every candidate that cannot come under `cap` stops after a few rows.
 */
export function quietBlockSigma(
  a: Uint8Array,
  b: Uint8Array,
  w: number,
  h: number,
  share: number,
): number {
  const s = searchOf(a, b, w, h);
  const blocks = s.corners.length / 2;
  if (blocks === 0) return Number.NaN;
  const rank = Math.floor(blocks * share);
  // Whole-pixel phase (number 0 of each shift): standing still is shift LOCAL·(2·LOCAL+2), the
  // pan's the same place in the second centre's shifts.
  const phases = s.phases.length;
  const still = LOCAL * (2 * LOCAL + 2) * phases;
  const pan = s.shifts.length > (2 * LOCAL + 1) ** 2 ? still + (2 * LOCAL + 1) ** 2 * phases : -1;
  const bounds = new Float64Array(blocks);
  const guess: number[] = [];
  const won = new Int32Array(1);
  for (let i = 0; i < blocks; i++) {
    const bx = at(s.corners, 2 * i);
    const by = at(s.corners, 2 * i + 1);
    const [dx, dy] = at(s.shifts, still / phases);
    const whole = at(s.phases, 0);
    let bound = residual(whole.plane, s.fb, s.w, bx, by, dx, dy, Infinity) / (1 + whole.share);
    let first = still;
    if (pan >= 0) {
      const [px, py] = at(s.shifts, pan / phases);
      const r = residual(whole.plane, s.fb, s.w, bx, by, px, py, Infinity) / (1 + whole.share);
      if (r < bound) {
        bound = r;
        first = pan;
      }
    }
    bounds[i] = bound;
    guess.push(first);
  }
  const cap = f64At(Float64Array.from(bounds).sort(), rank);
  const exact = new Float64Array(blocks);
  for (let i = 0; i < blocks; i++) {
    // A block whose bound is under cap may still have its best there: searched in any case.
    const best = bestResidual(
      s,
      at(s.corners, 2 * i),
      at(s.corners, 2 * i + 1),
      at(guess, i),
      cap,
      won,
    );
    exact[i] = best <= cap ? best : Number.POSITIVE_INFINITY;
  }
  return Math.sqrt(Math.max(0, f64At(exact.sort(), rank)));
}

/** The low quantile `share` of a set of block σs (the best-compensated, flattest blocks). */
export function quietQuantile(sigmas: number[], share: number): number {
  if (sigmas.length === 0) return Number.NaN;
  const s = [...sigmas].sort((x, y) => x - y);
  return at(s, Math.floor(s.length * share));
}

/**
 * How much brighter `b` is than `a` where the picture lines up (the median over 16×16 blocks of
 * their mean difference, `a` moved by the pan): a flicker changes every block alike, motion and
 * noise move the mean of a few.
 */
export function pairFlicker(a: Uint8Array, b: Uint8Array, w: number, h: number): number {
  const [gx, gy] = globalShift(a, b, w, h);
  const margin = Math.max(Math.abs(gx), Math.abs(gy)) + EDGE;
  const diffs: number[] = [];
  for (let by = margin; by + BLOCK + margin <= h; by += BLOCK) {
    for (let bx = margin; bx + BLOCK + margin <= w; bx += BLOCK) {
      let sum = 0;
      for (let y = by; y < by + BLOCK; y++) {
        const rowA = (y + gy) * w + gx;
        for (let x = bx; x < bx + BLOCK; x++) {
          sum += byteAt(b, y * w + x) - byteAt(a, rowA + x);
        }
      }
      diffs.push(sum / (BLOCK * BLOCK));
    }
  }
  if (diffs.length === 0) return 0;
  diffs.sort((p, q) => p - q);
  return at(diffs, diffs.length >> 1);
}
