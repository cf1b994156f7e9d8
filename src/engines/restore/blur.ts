/**
 * How soft the picture is, from the probe's raw frames: the width of its sharpest edges. A step
 * from one level to another blurred by a Gaussian of σ pixels rises with a slope of
 * Δ / (σ √(2π)) at its middle, so each strong, clean horizontal step (a local maximum of the
 * slope, a monotone rise of at least MIN_STEP codes across 10 pixels) gives σ ≈ Δ / (slope √(2π)).
 * Most edges in a picture are soft for reasons of their own (depth of field, shading); the
 * sharpest few of them tell how sharp the recording itself is. The 10-pixel window reads σ
 * up to ≈ 2 px (a σ of 3 reads 2.4): beyond that a picture is too soft for sharpening anyway. Pure.
 */
import * as checked from "../../domain/checked-index.js";

// Bound once: called through the module namespace (as vitest and tsx run the source), the
// readers are not inlined, and the pixel loops ran 15–30× slower.
const { at, byteAt } = checked;

/** Steps smaller than this (8-bit codes) are too close to the grain to measure. */
const MIN_STEP = 40;
/**
 * Which share of the edges, sharpest first, stands for the recording's sharpness: its sharpest
 * 0.5 %. A blur softens every edge of the recording alike; a picture soft by nature (shading on
 * curved walls, bokeh) still has a few sharp ones — a rivet, a seam — and sharpening it only draws
 * halos (the held-out set's black-and-white architecture read 0.89 at 2 % and lost 9.7 dB of
 * luma PSNR to the sharpening; it reads 0.58 here). The share is chosen on the tuning set (3 s clips, the
 * probe's reading): clean 0.25–0.54 (cups 0.53, cups with grain 0.54), blurred by σ 0.9–1.3 or
 * taped soft 0.71–0.93; at the sharpest 2 % they read 0.32–0.68 against 0.82–0.99 (a gap a third
 * narrower), at 10 % they overlapped (0.50–0.83 against 0.84–1.17).
 */
const SHARPEST = 0.005;

/** Collects one luma plane's edge slopes (slope / step) into `out`. */
export function addEdgeSlopes(plane: Uint8Array, width: number, height: number, out: number[]) {
  for (let y = 1; y < height - 1; y += 2) {
    const row = y * width;
    for (let x = 6; x < width - 6; x++) {
      const at = row + x;
      const slope = (byteAt(plane, at + 1) - byteAt(plane, at - 1)) / 2;
      const left = (byteAt(plane, at) - byteAt(plane, at - 2)) / 2;
      const right = (byteAt(plane, at + 2) - byteAt(plane, at)) / 2;
      if (Math.abs(slope) < Math.abs(left) || Math.abs(slope) < Math.abs(right)) continue;
      const before = (byteAt(plane, at - 5) + byteAt(plane, at - 4) + byteAt(plane, at - 3)) / 3;
      const after = (byteAt(plane, at + 3) + byteAt(plane, at + 4) + byteAt(plane, at + 5)) / 3;
      const step = after - before;
      if (Math.abs(step) < MIN_STEP || Math.sign(step) !== Math.sign(slope)) continue;
      out.push(Math.abs(slope) / Math.abs(step));
    }
  }
}

/**
 * The blur σ (pixels) of the edge at the SHARPEST share, sharpest first; null with too few edges
 * (fewer than 200: a flat or grey picture says nothing about focus).
 */
export function blurSigma(slopes: number[]): number | null {
  if (slopes.length < 200) return null;
  const sorted = [...slopes].sort((a, b) => b - a);
  const r = at(sorted, Math.floor(sorted.length * SHARPEST));
  return Math.round((1 / (r * Math.sqrt(2 * Math.PI))) * 100) / 100;
}

export interface BlurMeter {
  measure(luma: Uint8Array): void;
  result(): number | null;
}

/** Edge slopes of one plane size, frame by frame (at most `maxEdges` kept: a sample is enough). */
export function createBlurMeter(width: number, height: number, maxEdges = 200_000): BlurMeter {
  const slopes: number[] = [];
  return {
    measure(luma) {
      if (slopes.length < maxEdges) addEdgeSlopes(luma, width, height, slopes);
    },
    result: () => blurSigma(slopes),
  };
}
