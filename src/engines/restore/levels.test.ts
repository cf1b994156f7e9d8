import { describe, expect, it } from "vitest";
import { createLevelsMeter, type GrainReading, isGrainy, type LevelsReading } from "./levels.js";
import { LIMITS } from "./limits.js";
import { decideTone, isFaded } from "./tone.js";

// The probe's frames of an SD tape: one field of 720×576.
const W = 720;
const H = 288;
const LUMA = W * H;
const CW = W / 2;
const CH = H / 2;

const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/**
 * A synthetic scene, yuv420p: luma ramps from `lo` to `hi` across the picture, colour turns
 * round the hue circle down it, as saturated as `sat` at mid-grey and grey at both ends (as a
 * photograph's shadows and highlights are).
 */
function scene(lo: number, hi: number, sat: number): Uint8Array {
  const out = new Uint8Array((LUMA * 3) / 2);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) out[y * W + x] = clamp(lo + ((hi - lo) * x) / (W - 1));
  for (let y = 0; y < CH; y++) {
    const hue = (2 * Math.PI * y) / CH;
    for (let x = 0; x < CW; x++) {
      const t = x / (CW - 1);
      const amp = sat * (4 * t * (1 - t)) ** 2;
      out[LUMA + y * CW + x] = clamp(128 + amp * Math.cos(hue));
      out[LUMA + CW * CH + y * CW + x] = clamp(128 + amp * Math.sin(hue));
    }
  }
  return out;
}

/** The bench's fade (bench/quality/degradations.ts `fade`): code 16 → black, 235 → white. */
function fade(frame: Uint8Array, black: number, white: number, sat: number): Uint8Array {
  const gain = (white - black) / 219;
  return frame.map((v, i) => clamp(i < LUMA ? black + (v - 16) * gain : 128 + (v - 128) * sat));
}

/**
 * Seeded Gaussian grain of σ `y` (luma) and `c` (colour), new in every frame; `size` 2 draws it
 * at half size and enlarges it (coarse grain: a worn tape, as the bench's tape-b).
 */
function grain(frame: Uint8Array, y: number, c: number, seed: number, size = 1): Uint8Array {
  let s = seed >>> 0;
  const uniform = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 0.5) / 2 ** 32;
  };
  const gauss = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const out = new Uint8Array(frame.length);
  const plane = (at: number, w: number, h: number, sigma: number) => {
    const draws = new Float64Array(Math.ceil(w / size) * Math.ceil(h / size)).map(() => gauss());
    const dw = Math.ceil(w / size);
    for (let yy = 0; yy < h; yy++)
      for (let xx = 0; xx < w; xx++) {
        const d = draws[Math.floor(yy / size) * dw + Math.floor(xx / size)] as number;
        out[at + yy * w + xx] = clamp((frame[at + yy * w + xx] as number) + sigma * d);
      }
  };
  plane(0, W, H, y);
  plane(LUMA, CW, CH, c);
  plane(LUMA + CW * CH, CW, CH, c);
  return out;
}

/** 8 frames of `frame`, each with its own grain (none when `y` and `c` are 0). */
function clip(frame: Uint8Array, y: number, c: number, size = 1): Uint8Array[] {
  return Array.from({ length: 8 }, (_, i) => (y || c ? grain(frame, y, c, i + 1, size) : frame));
}

/** The levels of `frames` as the probe reads them, with its noise reading `noise`. */
function read(frames: Uint8Array[], noise: GrainReading | null): LevelsReading {
  const meter = createLevelsMeter(W, H);
  for (const f of frames) meter.measure(f);
  const r = meter.result(noise);
  if (!r) throw new Error("no reading");
  return r;
}

describe("the levels reading under grain", () => {
  const colourful = scene(16, 235, 50);

  it("reads a tape's fade through heavy grain (the bench's tape grain, fine and coarse)", () => {
    // tape-b's fade (48–196, colour ×0.7) under tape-a's fine grain (σ 9 / 12) and tape-b's
    // coarse grain (σ 7 / 9 drawn at 2 px). Read as means of 4×4 pixels (2×2 colour samples),
    // as before 2026-11-30, the dark channel came to 19 and 6 here (38 without grain): "not
    // faded", and the whites to 228 and 240.
    const faded = fade(colourful, 48, 196, 0.7);
    const clean = read(clip(faded, 0, 0), null);
    expect(isFaded(clean)).toBe(true);
    for (const [y, c, size] of [
      [9, 12, 1],
      [7, 9, 2],
    ] as const) {
      const frames = clip(faded, y, c, size);
      // The probe's noise reading taken to be the grain's σ.
      const r = read(frames, { y, c });
      expect(isFaded(r), `grain ${y}/${c} at ${size} px: dark ${r.dark}`).toBe(true);
      // Nearly the veil the clean fade shows (40; 37 and 35 under the grain).
      expect(r.dark).toBeGreaterThanOrEqual(clean.dark - 6);
      // The whole stretch the wide reading asks for (of which tone.ts makes fadeWideShare).
      expect(decideTone({ ...r, wide: false }, []).levels?.gain).toBeGreaterThan(1.3);
      expect(decideTone(r, []).levels?.gain).toBeGreaterThan(1 + LIMITS.fadeWideShare * 0.3);
      // Read as a clean picture is (4×4 means), the grain hides the fade.
      expect(isFaded(read(frames, null)), `4 px, grain ${y}/${c}`).toBe(false);
    }
  });

  it("says when it read the wide means (the stretch is made in part there: tone.ts)", () => {
    const frames = clip(fade(colourful, 37, 205, 0.75), 9, 12);
    expect(read(frames, { y: 9, c: 12 }).wide).toBe(true);
    expect(read(frames, null).wide).toBeUndefined();
    expect(read(frames, { y: 1, c: 0.2 }).wide).toBeUndefined();
  });

  it("counts a picture as grainy from the probe's noise reading, colour or luma", () => {
    expect(isGrainy(null)).toBe(false);
    // Clean tuning clips: forest's texture reads σ 1.59 in luma; grain 4 reads 2.08 / 3.46.
    expect(isGrainy({ y: 1.59, c: 0.28 })).toBe(false);
    expect(isGrainy({ y: 2.08, c: 3.46 })).toBe(true);
    expect(isGrainy({ y: 3, c: 0 })).toBe(true);
  });

  it("leaves a clean dark picture with heavy grain alone", () => {
    const dark = scene(16, 130, 40);
    for (const [y, c, size] of [
      [9, 12, 1],
      [7, 9, 2],
      [10, 10, 3],
    ] as const) {
      const r = read(clip(dark, y, c, size), { y, c });
      expect(isFaded(r), `grain ${y}/${c} at ${size} px: dark ${r.dark}`).toBe(false);
    }
  });

  it("does not stretch grey fog lifted or lowered 8 levels (grain σ 4)", () => {
    // A fog: grey, luma 40–180; as shot and graded ±8.
    for (const lift of [-8, 0, 8]) {
      const fog = scene(40 + lift, 180 + lift, 0);
      const r = read(clip(fog, 4, 4), { y: 4, c: 4 });
      expect(isFaded(r), `fog ${lift}: dark ${r.dark}`).toBe(false);
      const t = decideTone(r, []);
      expect(t.levels?.gain ?? 1).toBeLessThan(LIMITS.maxLevelsGain);
      expect(t.levels).toBeNull();
    }
  });
});
