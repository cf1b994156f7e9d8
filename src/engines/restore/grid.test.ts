import { describe, expect, it } from "vitest";
import { createGridMeter } from "./grid.js";

const W = 720;
const H = 288;

/** A deterministic pseudo-random source (tests must not flake). */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A textured row of `n` values: random steps smoothed by a small box, 30-220. */
function texture(n: number, rand: () => number, smooth = 1): Float64Array {
  const raw = Float64Array.from({ length: n }, () => 30 + 190 * rand());
  const out = new Float64Array(n);
  for (let x = 0; x < n; x++) {
    let sum = 0;
    let count = 0;
    for (let d = -smooth; d <= smooth; d++) {
      const v = raw[Math.min(n - 1, Math.max(0, x + d))];
      if (v !== undefined) {
        sum += v;
        count++;
      }
    }
    out[x] = sum / count;
  }
  return out;
}

/** `row` enlarged to `n` by linear interpolation, centres aligned as ffmpeg's scaler aligns them. */
function enlarge(row: Float64Array, n: number): Float64Array {
  const m = row.length;
  return Float64Array.from({ length: n }, (_, x) => {
    const u = Math.min(m - 1, Math.max(0, ((x + 0.5) * m) / n - 0.5));
    const j = Math.min(m - 2, Math.floor(u));
    const t = u - j;
    return (1 - t) * (row[j] ?? 0) + t * (row[j + 1] ?? 0);
  });
}

/** A plane whose rows come from `makeRow`, with coding-like noise of ±`noise` codes. */
function plane(makeRow: (y: number) => Float64Array, noise: number, rand: () => number) {
  const out = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    const row = makeRow(y);
    for (let x = 0; x < W; x++) {
      const v = (row[x] ?? 0) + (rand() * 2 - 1) * noise;
      out[y * W + x] = Math.max(0, Math.min(255, Math.round(v)));
    }
  }
  return out;
}

function read(makeRow: (y: number) => Float64Array, noise = 1.5, frames = 3) {
  const rand = rng(7);
  const meter = createGridMeter(W, H);
  for (let f = 0; f < frames; f++) meter.measure(plane(makeRow, noise, rand));
  return meter.result();
}

describe("grid reading (a picture enlarged from a coarser grid)", () => {
  it("finds a picture enlarged twice from half its width", () => {
    const rand = rng(1);
    const reading = read(() => enlarge(texture(W / 2, rand), W));
    expect(reading?.factor).toBe(2);
    expect(reading?.contrast).toBeLessThan(0.3);
  });

  it("finds one enlarged 1.5 times", () => {
    const rand = rng(2);
    const reading = read(() => enlarge(texture(W / 1.5, rand), W));
    expect(reading?.factor).toBe(1.5);
    expect(reading?.contrast).toBeLessThan(0.3);
  });

  it("reads no grid on a picture as fine as its pixels, or soft by nature", () => {
    const fine = rng(3);
    expect(read(() => texture(W, fine, 0))?.contrast).toBeGreaterThan(0.85);
    // Smoothed over 7 pixels: soft as a defocused scene, but on no grid.
    const soft = rng(4);
    expect(read(() => texture(W, soft, 3))?.contrast).toBeGreaterThan(0.85);
  });

  it("is not fooled by the coding noise of an enlarged picture at a whole-pixel shift", () => {
    // The same enlargement moved by one picture pixel is still on a grid (another alignment).
    const rand = rng(5);
    const shifted = read(() => {
      const row = enlarge(texture(W / 2, rand), W + 1);
      return row.subarray(1);
    });
    expect(shifted?.contrast).toBeLessThan(0.3);
  });

  it("finds an HD picture enlarged twice from SD, reading a sample of its rows", () => {
    const rand = rng(8);
    const [w, h] = [1440, 540];
    const meter = createGridMeter(w, h);
    for (let f = 0; f < 2; f++) {
      const frame = new Uint8Array(w * h);
      for (let y = 0; y < h; y++) {
        const row = enlarge(texture(w / 2, rand), w);
        for (let x = 0; x < w; x++) frame[y * w + x] = Math.round(row[x] ?? 0);
      }
      meter.measure(frame);
    }
    const reading = meter.result();
    expect(reading?.factor).toBe(2);
    expect(reading?.contrast).toBeLessThan(0.3);
  });

  it("reads nothing on a flat picture (no detail to find a grid in)", () => {
    const meter = createGridMeter(W, H);
    meter.measure(new Uint8Array(W * H).fill(128));
    expect(meter.result()).toBeNull();
  });

  it("reads nothing before a frame, and stops reading after enough frames", () => {
    expect(createGridMeter(W, H).result()).toBeNull();
    const rand = rng(6);
    const many = read(() => enlarge(texture(W / 2, rand), W), 1.5, 20);
    expect(many?.factor).toBe(2);
  });
});
