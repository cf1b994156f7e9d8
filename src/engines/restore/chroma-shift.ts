/**
 * How far the colour has slipped sideways from the picture, from a few raw yuv420p frames.
 * Tape (VHS, U-matic) records colour on a separate, narrower carrier, and a worn head or a
 * misaligned deck delays it: the colour of every edge then lands a few pixels to the right of
 * the edge itself. Where there is an edge in the brightness there is usually one in the colour
 * too, so the shift is the offset at which the horizontal edges of the two line up best: the
 * peak of the cross-correlation of their horizontal gradient magnitudes, on the chroma grid.
 * Pure; frames come from the probe (one field each: a horizontal shift is the same in a field).
 * A slip of one chroma pixel (two of the picture) is below what it tells apart from footage in
 * line once the edges are smoothed against grain, and is left.
 */
import type { Capabilities } from "./limits.js";
import type { Rotation } from "./types.js";

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
 * How clearly the best offset must stand out: its lead over no offset as a share of the curve's
 * whole rise (best minus worst). On the quality bench's clips, in line (clean, grainy, soft,
 * low-resolution, blocky, faded, interlaced) read 0 to 0.06; slipped by 3–4 chroma pixels,
 * bled and grainy as on VHS included, 0.26–0.69 frame by frame.
 */
const MIN_LEAD = 0.2;

/** `row` smoothed by a centred box of BOX samples (shorter at the ends), into `out`. */
function smooth(row: Float64Array, out: Float64Array) {
  const half = BOX >> 1;
  for (let x = 0; x < row.length; x++) {
    let sum = 0;
    let n = 0;
    for (let k = Math.max(0, x - half); k <= Math.min(row.length - 1, x + half); k++) {
      sum += row[k] as number;
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
    out[x] = Math.abs((row[x + 1] as number) - (row[x - 1] as number));
  }
}

/**
 * How well the luma's edges line up with the chroma's at each offset −MAX_SHIFT…MAX_SHIFT
 * (index offset + MAX_SHIFT), over one yuv420p frame (`width` × `height` luma): the mean
 * product of their gradient magnitudes, summed over bands of rows. Added into `sums`.
 */
export function addEdgeCorrelations(
  frame: Uint8Array,
  width: number,
  height: number,
  sums: Float64Array,
): void {
  const cw = width >> 1;
  const ch = height >> 1;
  const uAt = width * height;
  const vAt = uAt + cw * ch;
  const band = [new Float64Array(cw), new Float64Array(cw), new Float64Array(cw)];
  const smoothed = new Float64Array(cw);
  const edges = [new Float64Array(cw), new Float64Array(cw), new Float64Array(cw)];
  for (let y0 = 0; y0 + BAND_ROWS <= ch; y0 += BAND_ROWS) {
    for (const b of band) b.fill(0);
    const [l, u, v] = band as [Float64Array, Float64Array, Float64Array];
    for (let y = y0; y < y0 + BAND_ROWS; y++) {
      const top = 2 * y * width;
      for (let x = 0; x < cw; x++) {
        // The luma at chroma resolution: the 2×2 block each chroma sample covers.
        const a = top + 2 * x;
        l[x] =
          (l[x] as number) +
          (frame[a] as number) +
          (frame[a + 1] as number) +
          (frame[a + width] as number) +
          (frame[a + width + 1] as number);
        u[x] = (u[x] as number) + (frame[uAt + y * cw + x] as number);
        v[x] = (v[x] as number) + (frame[vAt + y * cw + x] as number);
      }
    }
    band.forEach((b, i) => {
      smooth(b, smoothed);
      gradients(smoothed, edges[i] as Float64Array);
    });
    const [gl, gu, gv] = edges as [Float64Array, Float64Array, Float64Array];
    for (let s = -MAX_SHIFT; s <= MAX_SHIFT; s++) {
      const from = Math.max(1, 1 - s);
      const to = Math.min(cw - 1, cw - 1 - s);
      let sum = 0;
      for (let x = from; x < to; x++) {
        sum += (gl[x] as number) * ((gu[x + s] as number) + (gv[x + s] as number));
      }
      sums[s + MAX_SHIFT] = (sums[s + MAX_SHIFT] as number) + sum / Math.max(1, to - from);
    }
  }
}

/**
 * The slip the correlations show, in chroma pixels (positive: the colour lies right of the
 * picture): the best offset when it stands out (MIN_LEAD), else 0; null with no edges at all.
 */
export function slipOf(sums: Float64Array): number | null {
  let best = 0;
  let worst = 0;
  for (let s = -MAX_SHIFT; s <= MAX_SHIFT; s++) {
    const v = sums[s + MAX_SHIFT] as number;
    if (v > (sums[best + MAX_SHIFT] as number)) best = s;
    if (v < (sums[worst + MAX_SHIFT] as number)) worst = s;
  }
  const peak = sums[best + MAX_SHIFT] as number;
  const rise = peak - (sums[worst + MAX_SHIFT] as number);
  if (!(peak > 0) || !(rise > 0)) return null;
  const lead = (peak - (sums[MAX_SHIFT] as number)) / rise;
  return lead >= MIN_LEAD ? best : 0;
}

/** The colour's slip over a few frames, one at a time. */
export interface ChromaShiftMeter {
  /** Measures one whole yuv420p frame of the meter's size. */
  measure(frame: Uint8Array): void;
  /** The slip of all the frames measured together (see slipOf); null before one with edges. */
  result(): number | null;
}

export function createChromaShiftMeter(width: number, height: number): ChromaShiftMeter {
  const sums = new Float64Array(2 * MAX_SHIFT + 1);
  return {
    measure: (frame) => addEdgeCorrelations(frame, width, height, sums),
    result: () => slipOf(sums),
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
