import { describe, expect, it } from "vitest";
import { createNoiseMeter, planeNoise, yuv420Noise } from "./noise.js";

/** Deterministic Gaussian-ish noise (sum of uniforms) so the test never flakes. */
function noisyPlane(
  w: number,
  h: number,
  sigma: number,
  picture: (x: number, y: number) => number,
) {
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const g = (rand() + rand() + rand() + rand() - 2) * Math.sqrt(3); // σ ≈ 1
      out[y * w + x] = Math.max(0, Math.min(255, Math.round(picture(x, y) + sigma * g)));
    }
  }
  return out;
}

describe("noise estimate", () => {
  it("reads the noise of flat and ramped pictures within 15%", () => {
    for (const sigma of [3, 8, 15]) {
      const flat = noisyPlane(256, 128, sigma, () => 120);
      const ramp = noisyPlane(256, 128, sigma, (x, y) => 40 + x * 0.5 + y * 0.3);
      expect(Math.abs(planeNoise(flat, 256, 128) - sigma)).toBeLessThan(sigma * 0.15);
      expect(Math.abs(planeNoise(ramp, 256, 128) - sigma)).toBeLessThan(sigma * 0.15);
    }
  });

  it("does not mistake detail for noise when part of the picture is plain", () => {
    // Left three quarters: fine stripes (detail); right quarter: plain sky.
    const detail = noisyPlane(256, 128, 0, (x, y) =>
      x < 192 ? ((x + y) % 4 < 2 ? 60 : 190) : 150,
    );
    expect(planeNoise(detail, 256, 128)).toBeLessThan(1);
  });

  it("measures luma and chroma of yuv420p frames separately", () => {
    const w = 128;
    const h = 64;
    const y = noisyPlane(w, h, 2, () => 100);
    const u = noisyPlane(w / 2, h / 2, 10, () => 128);
    const v = noisyPlane(w / 2, h / 2, 10, () => 128);
    const frame = new Uint8Array([...y, ...u, ...v]);
    const level = yuv420Noise(new Uint8Array([...frame, ...frame]), w, h);
    expect(level?.y).toBeGreaterThan(1.5);
    expect(level?.y).toBeLessThan(2.6);
    expect(level?.c).toBeGreaterThan(7.5);
    expect(yuv420Noise(new Uint8Array(10), w, h)).toBeNull();
  });

  const w = 64;
  const h = 32;
  /** One yuv420p frame per σ, grey with that much noise in every plane. */
  const noisyFrames = (width: number, height: number, sigmas: number[]) =>
    sigmas.map((sigma) => {
      const y = noisyPlane(width, height, sigma, () => 90);
      const c = noisyPlane(width / 2, height / 2, sigma, () => 128);
      return new Uint8Array([...y, ...c, ...c]);
    });

  it("measures frames that arrive in chunks cut anywhere as it measures them whole", () => {
    const frames = noisyFrames(w, h, [3, 6, 12]);
    const whole = new Uint8Array(frames.flatMap((f) => [...f]));
    const meter = createNoiseMeter(w, h);
    // Chunks of 1,000 bytes: a frame (3,072 bytes) ends inside one, never on its edge.
    for (let at = 0; at < whole.length; at += 1000) meter.push(whole.subarray(at, at + 1000));
    expect(meter.result()).toEqual(yuv420Noise(whole, w, h));
    expect(meter.result()?.y).toBeGreaterThan(4.5);
    expect(meter.result()?.y).toBeLessThan(8);
    const partial = createNoiseMeter(w, h);
    partial.push(whole.subarray(0, 3000));
    expect(partial.result()).toBeNull();
  });

  it("measures frames from several streams at once into one median, each stream's frames whole", () => {
    const frames = noisyFrames(w, h, [3, 6, 12]);
    const meter = createNoiseMeter(w, h);
    const first = meter.stream();
    const second = meter.stream();
    // Interleaved chunks that split frames: each stream must keep its own partial frame.
    const a = new Uint8Array([...(frames[0] as Uint8Array), ...(frames[2] as Uint8Array)]);
    const b = frames[1] as Uint8Array;
    for (let at = 0; at < a.length; at += 1000) {
      first(a.subarray(at, at + 1000));
      second(b.subarray(at, at + 1000));
    }
    const whole = new Uint8Array([...a, ...b]);
    expect(meter.result()).toEqual(yuv420Noise(whole, w, h));
  });
});
