import { describe, expect, it } from "vitest";
import { averageLuma, type LumaPair } from "./motion-average.js";

const W = 64;
const H = 48;
const OPTS = { width: W, height: H, threshold: 40 };

/** Deterministic pseudo-random numbers (mulberry32), so the tests never flake. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A value in [0, 1) fixed by a grid point, as a hash: a texture that never repeats. */
function hash(x: number, y: number, kind: number): number {
  return random(x * 73856093 + y * 19349663 + kind * 83492791)();
}

/**
 * A textured picture that does not repeat itself (so no shift but the true one matches):
 * random values on a 3-px grid, interpolated bilinearly; `kind` picks another picture.
 */
function scene(kind: number) {
  return (x: number, y: number) => {
    const gx = Math.floor(x / 3);
    const gy = Math.floor(y / 3);
    const fx = x / 3 - gx;
    const fy = y / 3 - gy;
    const v = (i: number, j: number) => hash(gx + i, gy + j, kind);
    const top = v(0, 0) * (1 - fx) + v(1, 0) * fx;
    const bottom = v(0, 1) * (1 - fx) + v(1, 1) * fx;
    return 40 + 170 * (top * (1 - fy) + bottom * fy);
  };
}

function plane(picture: (x: number, y: number) => number, sigma = 0, seed = 1): Uint8Array {
  const rand = random(seed);
  const out = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const g = (rand() + rand() + rand() + rand() - 2) * Math.sqrt(3); // σ ≈ 1
      out[y * W + x] = Math.max(0, Math.min(255, Math.round(picture(x, y) + sigma * g)));
    }
  }
  return out;
}

/** Frame i of a pan moving `speed` px to the right per frame, with grain σ `sigma`. */
function pan(i: number, speed: number, sigma: number, kind = 0): LumaPair {
  const picture = (x: number, y: number) => scene(kind)(x - speed * i, y);
  // The guide stands for the non-local means copy: the picture without its grain.
  return { noisy: plane(picture, sigma, 1000 + 7 * i), guide: plane(picture) };
}

/** Root mean squared difference, inside a margin (the edges have fewer matches). */
function rms(a: Uint8Array, b: Uint8Array, margin = 8): number {
  let sum = 0;
  let n = 0;
  for (let y = margin; y < H - margin; y++) {
    for (let x = margin; x < W - margin; x++) {
      const d = (a[y * W + x] as number) - (b[y * W + x] as number);
      sum += d * d;
      n++;
    }
  }
  return Math.sqrt(sum / n);
}

describe("averageLuma (Studio Max's motion-following average)", () => {
  it("makes a still noisy picture quieter", () => {
    const window = [0, 1, 2, 3, 4].map((i) => pan(i, 0, 10));
    const clean = plane(scene(0));
    const before = rms((window[2] as LumaPair).noisy, clean);
    const after = rms(averageLuma(window, OPTS), clean);
    expect(before).toBeGreaterThan(9);
    // Five frames' grain averaged: ≈ 1/√5 of it left.
    expect(after).toBeLessThan(before * 0.6);
  });

  it("follows a slow pan: quieter, and nothing smeared", () => {
    const window = [0, 1, 2, 3, 4].map((i) => pan(i, 2, 10));
    const clean = plane((x, y) => scene(0)(x - 4, y));
    const after = rms(averageLuma(window, OPTS), clean);
    expect(after).toBeLessThan(rms((window[2] as LumaPair).noisy, clean) * 0.6);
    // Clean frames of the pan come back as they are: each match is exact.
    const still = [0, 1, 2, 3, 4].map((i) => pan(i, 2, 0));
    expect(rms(averageLuma(still, OPTS), (still[2] as LumaPair).noisy)).toBeLessThan(0.5);
  });

  it("does not smear a pan faster than its search", () => {
    const window = [0, 1, 2, 3, 4].map((i) => pan(i, 15, 0));
    const own = (window[2] as LumaPair).noisy;
    expect(rms(averageLuma(window, OPTS), own, 0)).toBeLessThan(1);
  });

  it("does not blend across a cut", () => {
    // t−2 … t from one shot, t+1 and t+2 from another.
    const window = [0, 1, 2, 3, 4].map((i) => pan(i, 0, 0, i <= 2 ? 0 : 1));
    const own = (window[2] as LumaPair).noisy;
    expect(rms(averageLuma(window, OPTS), own, 0)).toBeLessThan(0.5);
    // The other shot alone beside the frame: returned as it is.
    const alone = [null, null, window[2] ?? null, window[3] ?? null, window[4] ?? null];
    expect(rms(averageLuma(alone, OPTS), own, 0)).toBe(0);
  });

  it("returns the frame as it is without neighbours, or when smaller than a block", () => {
    const f = pan(0, 0, 10);
    expect(averageLuma([null, null, f, null, null], OPTS)).toEqual(f.noisy);
    const tiny = { noisy: Uint8Array.of(1, 2, 3, 4), guide: Uint8Array.of(1, 2, 3, 4) };
    const opts = { width: 2, height: 2, threshold: 40 };
    expect(averageLuma([tiny, tiny, tiny, tiny, tiny], opts)).toEqual(tiny.noisy);
  });
});
