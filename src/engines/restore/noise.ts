/**
 * How noisy the picture is, per plane, from a few raw frames: Immerkær's estimator (the mean
 * absolute response of a Laplacian-difference mask, which cancels planes and straight ramps)
 * per 16×16 block, read at the quietest tenth of the blocks. Detail raises a block's response,
 * noise raises every block's: the quiet blocks (sky, walls, bokeh) are where noise shows alone.
 * Pure; frames come from the probe as one field each (so combing never reads as noise).
 */
import * as checked from "../../domain/checked-index.js";

// Bound once: called through the module namespace (as vitest and tsx run the source), the
// readers are not inlined, and the pixel loops ran 15–30× slower.
const { at, byteAt } = checked;

/** Noise standard deviation in 8-bit codes: luma, and the mean of the two chroma planes. */
export interface NoiseLevel {
  y: number;
  c: number;
}

const BLOCK = 16;
/** Which quantile of block responses stands for the noise (low: blocks without detail). */
const QUIET_SHARE = 0.1;
/** Immerkær: σ = √(π/2) / 6 × mean |mask response|. */
const SCALE = Math.sqrt(Math.PI / 2) / 6;

/** Noise σ of one 8-bit plane (`width` × `height`, row-major), or NaN when it is too small. */
export function planeNoise(plane: Uint8Array, width: number, height: number): number {
  const blocks: number[] = [];
  for (let by = 1; by + BLOCK < height; by += BLOCK) {
    for (let bx = 1; bx + BLOCK < width; bx += BLOCK) {
      let sum = 0;
      // Plain indexing, no helper closure: a closure made per pixel (and named per pixel by
      // tsx/esbuild's keepNames) took seconds on a few SD frames, between the probe and the encode.
      for (let y = by; y < by + BLOCK; y++) {
        const row = y * width;
        for (let x = bx; x < bx + BLOCK; x++) {
          const up = row - width + x;
          const dn = row + width + x;
          const m = row + x;
          // Mask [1 −2 1; −2 4 −2; 1 −2 1].
          const r =
            byteAt(plane, up - 1) -
            2 * byteAt(plane, up) +
            byteAt(plane, up + 1) -
            2 * (byteAt(plane, m - 1) - 2 * byteAt(plane, m) + byteAt(plane, m + 1)) +
            byteAt(plane, dn - 1) -
            2 * byteAt(plane, dn) +
            byteAt(plane, dn + 1);
          sum += Math.abs(r);
        }
      }
      blocks.push((SCALE * sum) / (BLOCK * BLOCK));
    }
  }
  if (blocks.length === 0) return Number.NaN;
  blocks.sort((a, b) => a - b);
  return at(blocks, Math.floor(blocks.length * QUIET_SHARE));
}

/** Noise of raw yuv420p frames as they arrive, one frame at a time. */
export interface NoiseMeter {
  /** The next bytes of the frames laid end to end (chunks may split a frame anywhere). */
  push(chunk: Uint8Array): void;
  /**
   * Another stream of frames (from another process), measured into the same result: a `push`
   * of its own, which keeps its own partly filled frame.
   */
  stream(): (chunk: Uint8Array) => void;
  /** The median over the whole frames pushed to every stream, per plane; null before one. */
  result(): NoiseLevel | null;
}

/** `also`: handed each whole frame after it is measured (another measurement of the same frames). */
export function createNoiseMeter(
  width: number,
  height: number,
  also?: (frame: Uint8Array) => void,
): NoiseMeter {
  const cw = width >> 1;
  const ch = height >> 1;
  const lumaBytes = width * height;
  const ys: number[] = [];
  const cs: number[] = [];
  const measure = (frame: Uint8Array) => {
    ys.push(planeNoise(frame.subarray(0, lumaBytes), width, height));
    const u = planeNoise(frame.subarray(lumaBytes, lumaBytes + cw * ch), cw, ch);
    const v = planeNoise(frame.subarray(lumaBytes + cw * ch), cw, ch);
    cs.push((u + v) / 2);
    also?.(frame);
  };
  const stream = () => {
    const frame = new Uint8Array(lumaBytes + 2 * cw * ch);
    let filled = 0;
    return (chunk: Uint8Array) => {
      let at = 0;
      while (at < chunk.length) {
        const take = Math.min(frame.length - filled, chunk.length - at);
        frame.set(chunk.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled === frame.length) {
          measure(frame);
          filled = 0;
        }
      }
    };
  };
  return {
    push: stream(),
    stream,
    result() {
      if (ys.length === 0) return null;
      const mid = (xs: number[]) =>
        at(
          [...xs].sort((a, b) => a - b),
          xs.length >> 1,
        );
      return { y: round2(mid(ys)), c: round2(mid(cs)) };
    },
  };
}

/**
 * Noise of raw yuv420p frames laid end to end (`width` × `height` each); the median over
 * frames per plane. Null when there is no whole frame.
 */
export function yuv420Noise(raw: Uint8Array, width: number, height: number): NoiseLevel | null {
  const meter = createNoiseMeter(width, height);
  meter.push(raw);
  return meter.result();
}

const round2 = (x: number) => Math.round(x * 100) / 100;
