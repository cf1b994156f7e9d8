import { describe, expect, it } from "vitest";
import { createBlockinessMeter } from "./blockiness.js";

const W = 64;
const H = 32;

/** A small deterministic generator, so every run draws the same pictures. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A gentle diagonal ramp with `grain` codes of noise either way; `block` keeps 8×8 means. */
function picture(grain: number, block: boolean, seed = 1): Uint8Array {
  const rand = seeded(seed);
  const px = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const at = (v: number) => (block ? v - (v % 8) + 3.5 : v);
      const noise = Math.round((rand() * 2 - 1) * grain);
      const level = Math.round(90 + at(x) * 0.3 + at(y) * 0.2) + noise;
      px[y * W + x] = Math.max(0, Math.min(255, level));
    }
  }
  return px;
}

const read = (...frames: Uint8Array[]) => {
  const meter = createBlockinessMeter(W, H);
  for (const f of frames) meter.measure(f);
  return meter.result();
};

describe("blockiness", () => {
  it("reads a starved picture's flat blocks stepping at the 8-pixel grid", () => {
    const r = read(picture(0, true));
    expect(r?.ratio).toBeGreaterThan(3);
    expect(r?.flatShare).toBeGreaterThan(0.9);
  });

  it("reads a smooth picture without blocks near 1, with or without faint noise", () => {
    expect(read(picture(0, false))?.ratio).toBeLessThan(1.5);
    expect(read(picture(1, false))?.ratio).toBeLessThan(1.5);
  });

  it("finds no blocks when the grid is a pixel off the codec's", () => {
    const blocks = picture(0, true);
    const shifted = blocks.map((_, i) => blocks[i % W === W - 1 ? i : i + 1] as number);
    expect(read(shifted)?.ratio).toBeLessThan(1.5);
  });

  it("leaves grain few flat places to read blocks at", () => {
    expect(read(picture(12, true))?.flatShare).toBeLessThan(0.1);
  });

  it("reads a starved GOP's blocky I and P frames though its B frames are clean (upper quartile)", () => {
    // I B B P B B P B B: a third of the frames blocky, as MPEG-2 leaves them at 1.2 Mbit/s.
    const gop = [true, false, false, true, false, false, true, false, false];
    const frames = gop.map((blocky, i) =>
      blocky ? picture(0, true, i + 1) : picture(1, false, i + 1),
    );
    const r = read(...frames);
    expect(r?.ratio).toBeGreaterThan(3);
    // The median frame is a B frame: what the reading was before, and it missed the blocks.
    expect(read(...frames.filter((_, i) => !gop[i]))?.ratio).toBeLessThan(1.5);
  });

  it("keeps grain's flat share low whether or not it is blocked, and a clean picture's high", () => {
    expect(read(picture(12, false))?.flatShare).toBeLessThan(0.1);
    expect(read(picture(0, false))?.flatShare).toBeGreaterThan(0.9);
  });

  it("keeps the upper quartile's reading: one blocky intra frame among smooth ones moves nothing", () => {
    const smooth = [1, 2, 3, 4].map((seed) => picture(1, false, seed));
    const alone = read(...smooth);
    const withIntra = read(picture(0, true), ...smooth);
    expect(withIntra?.ratio).toBeLessThan(1.5);
    expect(Math.abs((withIntra?.ratio ?? 0) - (alone?.ratio ?? 0))).toBeLessThan(0.3);
  });
});
