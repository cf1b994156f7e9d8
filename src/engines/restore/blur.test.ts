import { beforeAll, describe, expect, it } from "vitest";
import { type Frames, fixture, stillFrames } from "../../../test/restore-quality/still-frames.js";
import { createBlurMeter } from "./blur.js";

/** A copy of a luma plane blurred horizontally and vertically by a Gaussian of σ `sigma` px. */
function gaussian(plane: Uint8Array, w: number, h: number, sigma: number): Uint8Array {
  const r = Math.ceil(3 * sigma);
  const taps = Array.from({ length: 2 * r + 1 }, (_, k) =>
    Math.exp(-((k - r) ** 2) / (2 * sigma * sigma)),
  );
  const norm = taps.reduce((a, b) => a + b, 0);
  const pass = (src: Float64Array, dx: number, dy: number) => {
    const out = new Float64Array(w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let s = 0;
        taps.forEach((t, k) => {
          const xx = Math.min(w - 1, Math.max(0, x + dx * (k - r)));
          const yy = Math.min(h - 1, Math.max(0, y + dy * (k - r)));
          s += t * (src[yy * w + xx] as number);
        });
        out[y * w + x] = s / norm;
      }
    }
    return out;
  };
  const both = pass(pass(Float64Array.from(plane), 1, 0), 0, 1);
  return Uint8Array.from(both, (v) => Math.round(v));
}

/** Vertical bars of random width and level: hard steps, then blurred. */
function bars(w: number, h: number, sigma: number): Uint8Array {
  const plane = new Uint8Array(w * h);
  let level = 40;
  let next = 0;
  let s = 3;
  for (let x = 0; x < w; x++) {
    if (x >= next) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      level = level > 128 ? 30 + (s % 40) : 180 + (s % 50);
      next = x + 8 + (s % 17);
    }
    for (let y = 0; y < h; y++) plane[y * w + x] = level;
  }
  return sigma > 0 ? gaussian(plane, w, h, sigma) : plane;
}

const sigmaOf = (plane: Uint8Array, w: number, h: number) => {
  const m = createBlurMeter(w, h);
  m.measure(plane);
  return m.result();
};

describe("blur on synthetic edges", () => {
  it("reads the σ a step was blurred with (up to 2 px: its 10 px window ends there)", () => {
    for (const sigma of [1, 1.5, 2]) {
      expect(sigmaOf(bars(400, 64, sigma), 400, 64)).toBeCloseTo(sigma, 0);
    }
  });

  it("says nothing of a picture without strong edges", () => {
    expect(sigmaOf(new Uint8Array(400 * 64).fill(90), 400, 64)).toBeNull();
  });
});

describe("blur on real frames", () => {
  let cups: Frames;
  beforeAll(async () => {
    cups = await stillFrames(fixture("cups-640.jpg"), 480, 360);
  });

  it("reads a sharp photograph as sharp and the same photograph blurred as soft", () => {
    const luma = (cups.frames[0] as Uint8Array).subarray(0, 480 * 360);
    const sharp = sigmaOf(luma, 480, 360) as number;
    expect(sharp).toBeLessThan(1);
    const soft = sigmaOf(gaussian(luma, 480, 360, 1.5), 480, 360) as number;
    // Blurs add in quadrature: √(sharp² + 1.5²).
    expect(soft).toBeGreaterThan(1.4);
    expect(soft).toBeCloseTo(Math.hypot(sharp, 1.5), 0);
  });
});
