import { beforeAll, describe, expect, it } from "vitest";
import {
  type Frames,
  faded,
  fixture,
  grainy,
  mapFrame,
  stillFrames,
} from "../../../test/restore-quality/still-frames.js";
import { createLevelsMeter, type LevelsReading } from "./levels.js";
import { LIMITS } from "./limits.js";
import { decideTone, isFaded } from "./tone.js";

const reading = (over: Partial<LevelsReading>): LevelsReading => ({
  yLow: 20,
  yMid: 110,
  yHigh: 225,
  dark: 2,
  bright: 250,
  sat: 20,
  ...over,
});

describe("the fade decision on levels", () => {
  it("needs a lifted dark channel and dimmed whites together on a colourful picture", () => {
    expect(isFaded(reading({ dark: 40, bright: 200 }))).toBe(true);
    // Lifted without the whites sinking: a lifted grade, or a pale scene.
    expect(isFaded(reading({ dark: 34, bright: 240 }))).toBe(false);
    // ... unless the veil is heavier than any clean scene's.
    expect(isFaded(reading({ dark: 44, bright: 240 }))).toBe(true);
    // Dim whites with a dark channel at black: a dark scene, not a veil.
    expect(isFaded(reading({ dark: 5, bright: 150 }))).toBe(false);
  });

  it("needs a heavier veil on a grey picture (haze is grey)", () => {
    expect(isFaded(reading({ sat: 0, dark: 34, bright: 190 }))).toBe(false);
    expect(isFaded(reading({ sat: 0, dark: 58, bright: 170 }))).toBe(true);
  });

  it("reads a veil heavier than any fade as a bright scene", () => {
    expect(isFaded(reading({ dark: 140, bright: 200 }))).toBe(false);
  });

  it("takes the veil off to black and stretches the range, colour with it", () => {
    const notes: string[] = [];
    const t = decideTone(reading({ dark: 40, bright: 200 }), notes);
    const levels = t.levels;
    if (!levels) throw new Error("not stretched");
    const map = (y: number) => levels.pivot + (y - levels.pivot) * levels.gain;
    // The veil's luma (16 + 40/1.164) lands on black; the range widens to fadeTargetRange.
    expect(map(16 + 40 / 1.164)).toBeCloseTo(16, 1);
    expect(levels.gain).toBeCloseTo(LIMITS.fadeTargetRange / 160, 2);
    expect(t.saturation).toBeCloseTo(Math.min(LIMITS.maxSaturation, levels.gain), 2);
    expect(notes[0]).toMatch(/faded: veil off/);
  });
});

describe("the customer's fade hint", () => {
  // Held-out `ladybird tape-c`'s reading (a light Video8 fade read through grain): not faded by
  // the analysis, since clean tuning `storm` reads further from black and white at both ends.
  const lightFade = reading({ dark: 19, bright: 227, sat: 22.9, wide: true });

  it("told faded, makes the stretch the analysis would not, from the same reading", () => {
    expect(decideTone(lightFade, []).levels).toBeNull();
    const notes: string[] = [];
    const told = decideTone(lightFade, notes, "faded");
    const forced = decideTone(reading({ dark: 40, bright: 200, wide: true }), []);
    expect(told.levels?.gain).toBeGreaterThan(1.05);
    expect(told.saturation).toBeGreaterThan(1);
    expect(notes[0]).toMatch(/→ told faded \(read through grain\): part of the veil off/);
    // The same arithmetic as a picture the analysis calls faded: only the decision is overruled.
    expect(forced.levels?.gain).toBeGreaterThan(told.levels?.gain ?? 0);
  });

  it("told faded, still leaves a picture that already spans the range", () => {
    const notes: string[] = [];
    expect(decideTone(reading({ dark: 2, bright: 250 }), notes, "faded").levels).toBeNull();
    expect(notes[0]).toMatch(/told faded, but less than 5 %: left/);
  });

  it("told not faded, keeps a picture the analysis would stretch (a graded or foggy look)", () => {
    const notes: string[] = [];
    const kept = decideTone(reading({ dark: 40, bright: 200 }), notes, "not_faded");
    expect(kept).toEqual({ levels: null, saturation: null });
    expect(notes[0]).toMatch(/told not faded: no stretch/);
    // Black and white still loses its chroma noise: that is not the levels.
    expect(decideTone(reading({ sat: 0.2 }), [], "not_faded").saturation).toBe(0);
  });
});

describe("the stretch of a grainy picture's wide reading", () => {
  it("makes only fadeWideShare of the stretch (the veil partly off, the gain partly made)", () => {
    const fine = decideTone(reading({ dark: 40, bright: 200 }), []).levels;
    const wide = decideTone(reading({ dark: 40, bright: 200, wide: true }), []).levels;
    if (!fine || !wide) throw new Error("not stretched");
    const share = LIMITS.fadeWideShare;
    expect(wide.gain).toBeCloseTo(1 + share * (fine.gain - 1), 2);
    // The veil's luma lands share of the way from where it is to black.
    const veil = 16 + 40 / 1.164;
    const map = (y: number) => wide.pivot + (y - wide.pivot) * wide.gain;
    expect(map(veil)).toBeCloseTo(veil + share * (16 - veil), 1);
    // The colour keeps the whole gain (a smaller one cost tuning `boats tape-a` 0.66 dB).
    const notes: string[] = [];
    const t = decideTone(reading({ dark: 40, bright: 200, wide: true }), notes);
    expect(t.saturation).toBe(decideTone(reading({ dark: 40, bright: 200 }), []).saturation);
    expect(notes[0]).toMatch(/read through grain/);
  });
});

/** The levels reading of a frame, as the probe takes it. */
function levelsOf(f: Frames, frame: Uint8Array): LevelsReading {
  const meter = createLevelsMeter(f.width, f.height);
  meter.measure(frame);
  const r = meter.result();
  if (!r) throw new Error("no reading");
  return r;
}

describe("the fade decision on real frames", () => {
  let fog: Frames;
  let forest: Frames;
  let cups: Frames;
  beforeAll(async () => {
    const still = (n: string) => stillFrames(fixture(n), 480, 360);
    [fog, forest, cups] = await Promise.all([
      still("fog-640.jpg"),
      still("forest-640.jpg"),
      still("cups-640.jpg"),
    ]);
  });

  it("leaves grey fog alone, as shot and 8 levels lighter or darker", () => {
    const frame = fog.frames[0] as Uint8Array;
    for (const lift of [-8, 0, 8]) {
      const graded = mapFrame(
        fog,
        frame,
        (v) => Math.min(235, Math.max(16, v + lift)),
        (v) => v,
      );
      expect(isFaded(levelsOf(fog, graded)), `fog ${lift}`).toBe(false);
    }
  });

  it("leaves clean colour alone: a dark forest and saturated cups, lifted 8 levels too", () => {
    for (const f of [forest, cups]) {
      const frame = f.frames[0] as Uint8Array;
      expect(isFaded(levelsOf(f, frame))).toBe(false);
      const lifted = mapFrame(
        f,
        frame,
        (v) => Math.min(235, v + 8),
        (v) => v,
      );
      expect(isFaded(levelsOf(f, lifted))).toBe(false);
    }
  });

  it("corrects fades with blacks 40–60 (bench-style: whites 185–215, colour paled), grain too", () => {
    const frame = cups.frames[0] as Uint8Array;
    for (const [black, white] of [
      [40, 215],
      [45, 200],
      [50, 205],
      [60, 185],
    ] as const) {
      const f = faded(cups, frame, black, white, 0.7);
      const notes: string[] = [];
      const t = decideTone(levelsOf(cups, f), notes);
      expect(t.levels?.gain, `fade ${black}–${white}: ${notes[0]}`).toBeGreaterThan(1.1);
      const noisy = grainy(cups, f, 8, 8);
      expect(decideTone(levelsOf(cups, noisy), []).levels, `grainy fade ${black}`).not.toBeNull();
    }
  });

  it("brings a grainy tape's fade, read wide, closer with the partial stretch than the full", () => {
    // The bench's tape-a fade (37–205, colour ×0.75) under its grain (σ 9 / 12), 8 frames.
    const frame = cups.frames[0] as Uint8Array;
    const fadedFrame = faded(cups, frame, 37, 205, 0.75);
    const meter = createLevelsMeter(cups.width, cups.height);
    for (let k = 1; k <= 8; k++) meter.measure(grainy(cups, fadedFrame, 9, 12, k));
    const r = meter.result({ y: 9, c: 12 });
    if (!r) throw new Error("no reading");
    expect(r.wide).toBe(true);
    const partial = decideTone(r, []).levels;
    const full = decideTone({ ...r, wide: false }, []).levels;
    if (!partial || !full) throw new Error("not stretched");
    const luma = cups.width * cups.height;
    const err = (t: { gain: number; pivot: number }) => {
      let s = 0;
      for (let i = 0; i < luma; i++) {
        const y = t.pivot + ((fadedFrame[i] as number) - t.pivot) * t.gain;
        s += (y - (frame[i] as number)) ** 2;
      }
      return Math.sqrt(s / luma);
    };
    expect(err(partial)).toBeLessThan(err(full));
  });

  it("brings a faded frame back close to the original", () => {
    const frame = cups.frames[0] as Uint8Array;
    const fadedFrame = faded(cups, frame, 45, 200, 0.7);
    const t = decideTone(levelsOf(cups, fadedFrame), []);
    const levels = t.levels;
    if (!levels) throw new Error("not stretched");
    const luma = cups.width * cups.height;
    const err = (a: Uint8Array) => {
      let s = 0;
      for (let i = 0; i < luma; i++) s += ((a[i] as number) - (frame[i] as number)) ** 2;
      return Math.sqrt(s / luma);
    };
    const restored = mapFrame(
      cups,
      fadedFrame,
      (v) => levels.pivot + (v - levels.pivot) * levels.gain,
      (v) => v,
    );
    // The fade moved luma by ≈ 25 codes (RMS); the stretch brings it within a third of that.
    expect(err(restored)).toBeLessThan(err(fadedFrame) / 3);
  });
});
