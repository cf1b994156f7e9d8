import { beforeAll, describe, expect, it } from "vitest";
import {
  type Frames,
  fixture,
  grainy,
  stillFrames,
} from "../../../test/restore-quality/still-frames.js";
import { decideDenoise } from "./denoise.js";
import { createFrameAnalysis } from "./frame-analysis.js";
import { planeNoise } from "./noise.js";
import { blockSigmas, globalShift, pairFlicker, quietQuantile } from "./temporal-noise.js";

const all = { has: () => true };

/** The probe's reading of frame pairs (each frame with the one after it). */
function read(f: Frames, frames: Uint8Array[]) {
  const analysis = createFrameAnalysis(f.width, f.height, { levels: false, slip: false });
  const push = analysis.stream();
  for (let i = 0; i + 1 < frames.length; i += 2) {
    push(frames[i] as Uint8Array);
    push(frames[i + 1] as Uint8Array);
  }
  const noise = analysis.result().noise;
  if (!noise) throw new Error("no noise reading");
  return noise;
}

/** A synthetic texture: fine stripes and checks of 1–3 px at full contrast, no noise. */
function texture(w: number, h: number, dx: number): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const u = x + dx;
      const v =
        128 + 50 * Math.sin(u * 1.7) * Math.cos(y * 1.3) + 40 * Math.sin(u * 0.45 + y * 0.8);
      out[y * w + x] = Math.max(0, Math.min(255, Math.round(v)));
    }
  }
  return out;
}

describe("motion-compensated noise on synthetic frames", () => {
  it("finds a pan's shift, and reads a moving fine texture as clean", () => {
    const w = 256;
    const h = 128;
    const a = texture(w, h, 0);
    const b = texture(w, h, 8);
    expect(globalShift(a, b, w, h)).toEqual([8, 0]);
    expect(quietQuantile(blockSigmas(a, b, w, h), 0.1)).toBeLessThan(0.5);
    // Within one frame the same texture reads as heavy noise: what the old estimate denoised.
    expect(planeNoise(a, w, h)).toBeGreaterThan(5);
  });
});

describe("flicker between frames", () => {
  it("reads a brightness jump where the picture lines up, and none in a steady pan", () => {
    const a = texture(256, 128, 0);
    const b = texture(256, 128, 8);
    expect(Math.abs(pairFlicker(a, b, 256, 128))).toBeLessThan(0.3);
    const brighter = b.map((v) => Math.min(255, v + 5));
    expect(pairFlicker(a, brighter, 256, 128)).toBeCloseTo(5, 0);
  });
});

describe("motion-compensated noise on real frames", () => {
  let forest: Frames;
  beforeAll(async () => {
    // Forest floor panned by three quarters of a pixel a frame: detail everywhere, no noise.
    forest = await stillFrames(fixture("forest-640.jpg"), 480, 288, { count: 8, panX: 0.75 });
  });

  it("reads clean forest as clean and leaves it undenoised", () => {
    const noise = read(forest, forest.frames);
    expect(noise.y).toBeLessThan(1.5);
    // The spatial estimate reads the texture as grain: the old decision denoised any plane
    // above σ 0.6 (hqdn3d luma 2.2σ), the forest floor with it.
    expect(noise.spatialY).toBeGreaterThan(0.6);
    expect(decideDenoise(noise, "enhanced", all, [])).toEqual([]);
  });

  it("reads grain added to the forest at its σ and denoises it", () => {
    const frames = forest.frames.map((f, i) => grainy(forest, f, 6, 8, i + 1));
    const noise = read(forest, frames);
    expect(noise.y).toBeGreaterThan(4.5);
    expect(noise.y).toBeLessThan(7);
    expect(noise.c).toBeGreaterThan(6);
    const [d] = decideDenoise(noise, "enhanced", all, []);
    expect(d).toMatchObject({ filter: "hqdn3d" });
    if (d?.filter !== "hqdn3d") return;
    expect(d.lumaSpatial).toBeGreaterThan(8);
    expect(d.chromaSpatial).toBeGreaterThan(16);
    // Studio Max takes fine grain out by non-local means, at about its σ.
    expect(decideDenoise(noise, "enhanced_max", all, [])).toMatchObject([
      { filter: "nlmeans", strength: noise.y, patch: 7, research: 15 },
    ]);
  });
});
