/**
 * How far the colour has slipped sideways from the picture, from a few raw yuv420p frames.
 * Tape (VHS, U-matic) records colour on a separate, narrower carrier, and a worn head or a
 * misaligned deck delays it: the colour of every edge then lands a few pixels to the right of
 * the edge itself. Where there is an edge in the brightness there is usually one in the colour
 * too, so the shift is the offset at which the horizontal edges of the two line up best: the
 * peak of the cross-correlation of their horizontal gradient magnitudes, on the chroma grid.
 *
 * Bleed (the colour smeared sideways, as tape also does) widens that peak until it barely stands
 * above no offset at all, and grain on a pale picture makes peaks of its own. So the decision
 * is a vote: every band of rows of every frame names the offset its own edges line up at, with
 * the weight of how clearly they do (its curve's rise), and a slip must carry the vote — most of
 * the bands, clearly more than colour in line would. Pure; frames come from the probe (one field
 * each: a horizontal shift is the same in a field).
 */
import * as checked from "../../domain/checked-index.js";
import type { Capabilities } from "./limits.js";
import type { Rotation } from "./types.js";

// Bound once: called through the module namespace (as vitest and tsx run the source), the
// readers are not inlined, and the pixel loops ran 15–30× slower.
const { byteAt, f64At } = checked;

/** The largest slip looked for, in chroma pixels (each side): VHS slips are 1–4. */
const MAX_SHIFT = 8;
/**
 * Chroma rows averaged into one band, and the width of the box each band's rows are smoothed
 * with, before their edges are compared. Tape grain (σ 14 in luma, 20 in chroma on the bench's
 * VHS) otherwise buries the edges: frame by frame the slip then read anything from −6 to 8.
 * Averaged so, every B-frame of that VHS read 2–4 and the sum read 3, the slip put on it.
 */
const BAND_ROWS = 8;
const BOX = 5;
/**
 * The vote a slip must carry: the weighted share of bands whose own best offset lies within one
 * chroma pixel of it (MIN_SUPPORT), and its lead over the share within one pixel of no offset
 * (MIN_SUPPORT_LEAD; the two windows overlap for a slip of one pixel). Chosen on the quality
 * bench's tuning clips: slipped 2–8 picture pixels, bled, grainy and on tape included, the slip
 * carried 0.38–1.00 with a lead of 0.10–1.00; in line, the best offset was 0 on every clip but
 * two grainy pale ones, which named −6 with 0.19–0.21 (lead 0.05–0.06); a low-resolution clip
 * named −1 with the same 1.00 as 0 (lead 0). (The previous rule, the summed curve's lead over
 * no offset ≥ 0.2, missed a bled 4 px slip at 0.106 and took grain on a pale sky for a slip of
 * −6 at 0.37–0.47.)
 */
const MIN_SUPPORT = 0.3;
const MIN_SUPPORT_LEAD = 0.08;
/** Offsets: −MAX_SHIFT…MAX_SHIFT at indexes 0…2·MAX_SHIFT. */
const OFFSETS = 2 * MAX_SHIFT + 1;

/** `row` smoothed by a centred box of BOX samples (shorter at the ends), into `out`. */
function smooth(row: Float64Array, out: Float64Array) {
  const half = BOX >> 1;
  for (let x = 0; x < row.length; x++) {
    let sum = 0;
    let n = 0;
    for (let k = Math.max(0, x - half); k <= Math.min(row.length - 1, x + half); k++) {
      sum += f64At(row, k);
      n++;
    }
    out[x] = sum / n;
  }
}

/** Horizontal gradient magnitudes of `row`, in place into `out` (borders 0). */
function gradients(row: Float64Array, out: Float64Array) {
  out[0] = 0;
  out[row.length - 1] = 0;
  for (let x = 1; x < row.length - 1; x++) {
    out[x] = Math.abs(f64At(row, x + 1) - f64At(row, x - 1));
  }
}

/**
 * How well the luma's edges line up with the chroma's at each offset −MAX_SHIFT…MAX_SHIFT
 * (index offset + MAX_SHIFT), over one yuv420p frame (`width` × `height` luma): the mean
 * product of their gradient magnitudes, per band of rows. Each band's curve is added into
 * `sums`, and its best offset gets the curve's rise (best minus worst) in `votes`.
 */
export function addEdgeCorrelations(
  frame: Uint8Array,
  width: number,
  height: number,
  sums: Float64Array,
  votes: Float64Array = new Float64Array(OFFSETS),
): void {
  const cw = width >> 1;
  const ch = height >> 1;
  const uAt = width * height;
  const vAt = uAt + cw * ch;
  // One band of rows summed per plane (luma at chroma resolution, u, v), and its edges.
  const [l, u, v] = [new Float64Array(cw), new Float64Array(cw), new Float64Array(cw)];
  const smoothed = new Float64Array(cw);
  const [gl, gu, gv] = [new Float64Array(cw), new Float64Array(cw), new Float64Array(cw)];
  const planes = [
    [l, gl],
    [u, gu],
    [v, gv],
  ] as const;
  for (let y0 = 0; y0 + BAND_ROWS <= ch; y0 += BAND_ROWS) {
    for (const [b] of planes) b.fill(0);
    for (let y = y0; y < y0 + BAND_ROWS; y++) {
      const top = 2 * y * width;
      for (let x = 0; x < cw; x++) {
        // The luma at chroma resolution: the 2×2 block each chroma sample covers.
        const a = top + 2 * x;
        l[x] =
          f64At(l, x) +
          byteAt(frame, a) +
          byteAt(frame, a + 1) +
          byteAt(frame, a + width) +
          byteAt(frame, a + width + 1);
        u[x] = f64At(u, x) + byteAt(frame, uAt + y * cw + x);
        v[x] = f64At(v, x) + byteAt(frame, vAt + y * cw + x);
      }
    }
    for (const [b, edges] of planes) {
      smooth(b, smoothed);
      gradients(smoothed, edges);
    }
    let best = 0;
    let low = Number.POSITIVE_INFINITY;
    let high = Number.NEGATIVE_INFINITY;
    for (let s = -MAX_SHIFT; s <= MAX_SHIFT; s++) {
      const from = Math.max(1, 1 - s);
      const to = Math.min(cw - 1, cw - 1 - s);
      let sum = 0;
      for (let x = from; x < to; x++) {
        sum += f64At(gl, x) * (f64At(gu, x + s) + f64At(gv, x + s));
      }
      const c = sum / Math.max(1, to - from);
      sums[s + MAX_SHIFT] = f64At(sums, s + MAX_SHIFT) + c;
      if (c > high) {
        high = c;
        best = s;
      }
      low = Math.min(low, c);
    }
    if (high > low) votes[best + MAX_SHIFT] = f64At(votes, best + MAX_SHIFT) + high - low;
  }
}

/**
 * The slip the correlations show, in chroma pixels (positive: the colour lies right of the
 * picture): the summed curve's best offset when the bands' vote carries it (MIN_SUPPORT,
 * MIN_SUPPORT_LEAD), else 0; null with no edges at all.
 */
export function slipOf(sums: Float64Array, votes: Float64Array): number | null {
  let best = 0;
  let worst = 0;
  for (let s = -MAX_SHIFT; s <= MAX_SHIFT; s++) {
    const v = f64At(sums, s + MAX_SHIFT);
    if (v > f64At(sums, best + MAX_SHIFT)) best = s;
    if (v < f64At(sums, worst + MAX_SHIFT)) worst = s;
  }
  const peak = f64At(sums, best + MAX_SHIFT);
  const rise = peak - f64At(sums, worst + MAX_SHIFT);
  const total = votes.reduce((a, b) => a + b, 0);
  if (!(peak > 0) || !(rise > 0) || !(total > 0)) return null;
  if (best === 0) return 0;
  const support = (at: number) => {
    let sum = 0;
    for (let d = -1; d <= 1; d++) sum += votes[at + d + MAX_SHIFT] ?? 0;
    return sum / total;
  };
  const carried = support(best) >= MIN_SUPPORT && support(best) - support(0) >= MIN_SUPPORT_LEAD;
  return carried ? best : 0;
}

/** The colour's slip over a few frames, one at a time. */
export interface ChromaShiftMeter {
  /** Measures one whole yuv420p frame of the meter's size. */
  measure(frame: Uint8Array): void;
  /** The slip of all the frames measured together (see slipOf); null before one with edges. */
  result(): number | null;
}

export function createChromaShiftMeter(width: number, height: number): ChromaShiftMeter {
  const sums = new Float64Array(OFFSETS);
  const votes = new Float64Array(OFFSETS);
  return {
    measure: (frame) => addEdgeCorrelations(frame, width, height, sums, votes),
    result: () => slipOf(sums, votes),
  };
}

/**
 * The correction for a measured slip (enhanced qualities): its opposite, in the same chroma
 * pixels of the upright picture the chain works on, or null when the colour is in line,
 * unmeasured, or this ffmpeg lacks `chromashift`. The slip is measured on the frames as stored;
 * ffmpeg turns them upright before the chain, so a half turn reverses it, and a quarter turn
 * makes it vertical: left alone (tape, where colour slips, is not stored turned).
 */
export function decideChromaShift(
  measured: number | null | undefined,
  rotationCw: Rotation,
  caps: Capabilities,
  notes: string[],
): number | null {
  if (measured === null || measured === undefined) return null;
  if (measured === 0) {
    notes.push("colour in line with the picture");
    return null;
  }
  if (rotationCw === 90 || rotationCw === 270) {
    notes.push(`colour ${Math.abs(measured)} px off the picture in a turned file: left`);
    return null;
  }
  const upright = rotationCw === 180 ? -measured : measured;
  const side = upright > 0 ? "right" : "left";
  if (!caps.has("chromashift")) {
    notes.push(
      `colour ${Math.abs(upright)} px ${side} of the picture; this ffmpeg has no chromashift`,
    );
    return null;
  }
  notes.push(`colour ${Math.abs(upright)} px ${side} of the picture → moved back`);
  return -upright;
}
