/**
 * The colour's slip: read off frames whose colour was moved on purpose (in memory, and by
 * ffmpeg's chromashift in a real file), put back at every quality, left alone when the colour is
 * in line.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, tempDir } from "../../../test/restore/media.js";
import {
  type Frames,
  fixture,
  grainy,
  stillFrames,
} from "../../../test/restore-quality/still-frames.js";
import { runFfmpeg } from "../ffmpeg.js";
import { createChromaShiftMeter, decideChromaShift } from "./chroma-shift.js";
import { createFfmpegRestoreEngine } from "./index.js";
import { probeForPlan } from "./probe.js";

/** A deterministic pseudo-random source, so a failing frame can be made again. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * A yuv420p frame of coloured rectangles (each with its own brightness and colour, so edges
 * in the colour fall on edges in the picture), its colour moved `slip` chroma pixels right,
 * then softened (`bleed`: a box of that many chroma pixels) and grained (`grain`: ± codes).
 */
function frame(w: number, h: number, opts: { slip: number; bleed?: number; grain?: number }) {
  const rnd = random(7);
  const cw = w >> 1;
  const ch = h >> 1;
  const out = new Uint8Array(w * h + 2 * cw * ch);
  const u = new Float64Array(cw * ch).fill(128);
  const v = new Float64Array(cw * ch).fill(128);
  for (let r = 0; r < 60; r++) {
    const x0 = Math.floor(rnd() * (w - 40));
    const y0 = Math.floor(rnd() * (h - 20));
    const rw = 8 + Math.floor(rnd() * 60);
    const rh = 8 + Math.floor(rnd() * 40);
    const [y, cb, cr] = [30 + rnd() * 200, 40 + rnd() * 176, 40 + rnd() * 176];
    for (let yy = y0; yy < Math.min(h, y0 + rh); yy++) {
      for (let xx = x0; xx < Math.min(w, x0 + rw); xx++) out[yy * w + xx] = y;
    }
    for (let yy = y0 >> 1; yy < Math.min(ch, (y0 + rh) >> 1); yy++) {
      for (let xx = x0 >> 1; xx < Math.min(cw, (x0 + rw) >> 1); xx++) {
        u[yy * cw + xx] = cb;
        v[yy * cw + xx] = cr;
      }
    }
  }
  const grain = opts.grain ?? 0;
  const put = (plane: Float64Array, at: number) => {
    for (let yy = 0; yy < ch; yy++) {
      for (let xx = 0; xx < cw; xx++) {
        let sum = 0;
        let n = 0;
        const half = (opts.bleed ?? 1) >> 1;
        for (let k = -half; k <= half; k++) {
          const from = Math.min(cw - 1, Math.max(0, xx - opts.slip + k));
          sum += plane[yy * cw + from] as number;
          n++;
        }
        out[at + yy * cw + xx] = Math.round(sum / n + (rnd() - 0.5) * 2 * grain);
      }
    }
  };
  for (let i = 0; i < w * h; i++)
    out[i] = Math.round((out[i] as number) + (rnd() - 0.5) * 2 * grain);
  put(u, w * h);
  put(v, w * h + cw * ch);
  return out;
}

const slipOfFrame = (f: Uint8Array, w: number, h: number) => {
  const meter = createChromaShiftMeter(w, h);
  meter.measure(f);
  return meter.result();
};

describe("the colour's slip", () => {
  it("reads how far the colour was moved, either way, and 0 when it was not", () => {
    for (const slip of [-4, -2, 0, 2, 3, 6]) {
      expect(slipOfFrame(frame(320, 160, { slip }), 320, 160)).toBe(slip);
    }
  });

  it("takes a slip of one chroma pixel (two of the picture) for colour in line", () => {
    // Smoothed against grain, one pixel's lead is within what in-line footage shows.
    expect(slipOfFrame(frame(320, 160, { slip: 1 }), 320, 160)).toBe(0);
  });

  it("reads it through bleeding and grain as heavy as a worn tape's", () => {
    const f = frame(640, 288, { slip: 3, bleed: 7, grain: 40 });
    expect(slipOfFrame(f, 640, 288)).toBe(3);
    expect(slipOfFrame(frame(640, 288, { slip: 0, bleed: 7, grain: 40 }), 640, 288)).toBe(0);
  });

  it("has nothing to say of a picture without colour", () => {
    const grey = frame(320, 160, { slip: 0 });
    grey.fill(128, 320 * 160);
    expect(slipOfFrame(grey, 320, 160)).toBeNull();
    expect(createChromaShiftMeter(320, 160).result()).toBeNull();
  });

  it("is put back only when it is there and this ffmpeg can move colour", () => {
    const has = { has: () => true };
    const notes: string[] = [];
    expect(decideChromaShift(3, 0, has, notes)).toBe(-3);
    expect(decideChromaShift(-2, 0, has, notes)).toBe(2);
    expect(decideChromaShift(0, 0, has, notes)).toBeNull();
    expect(decideChromaShift(null, 0, has, notes)).toBeNull();
    expect(decideChromaShift(3, 0, { has: () => false }, notes)).toBeNull();
    expect(notes).toEqual([
      "colour 3 px right of the picture → moved back",
      "colour 2 px left of the picture → moved back",
      "colour in line with the picture",
      "colour 3 px right of the picture; this ffmpeg has no chromashift",
    ]);
  });

  it("follows the turn ffmpeg gives the frames before the chain", () => {
    const has = { has: () => true };
    const notes: string[] = [];
    // Stored 3 px right, shown upside down: on screen it lies 3 px left.
    expect(decideChromaShift(3, 180, has, notes)).toBe(3);
    expect(decideChromaShift(3, 90, has, notes)).toBeNull();
    expect(notes).toEqual([
      "colour 3 px left of the picture → moved back",
      "colour 3 px off the picture in a turned file: left",
    ]);
  });
});

/**
 * A copy of real frames with their colour moved `slip` chroma pixels right and bled: each chroma
 * row blurred by a Gaussian of σ `bleed` chroma pixels (tape's smear), as the bench damages it.
 */
function slipped(f: Frames, frame: Uint8Array, slip: number, bleed: number): Uint8Array {
  const out = new Uint8Array(frame);
  const cw = f.width >> 1;
  const ch = f.height >> 1;
  const r = Math.ceil(3 * bleed);
  const taps = Array.from({ length: 2 * r + 1 }, (_, k) =>
    bleed > 0 ? Math.exp(-((k - r) ** 2) / (2 * bleed * bleed)) : k === r ? 1 : 0,
  );
  const norm = taps.reduce((a, b) => a + b, 0);
  for (const at of [f.width * f.height, f.width * f.height + cw * ch]) {
    for (let y = 0; y < ch; y++) {
      for (let x = 0; x < cw; x++) {
        let sum = 0;
        taps.forEach((t, k) => {
          const from = Math.min(cw - 1, Math.max(0, x - slip + k - r));
          sum += t * (frame[at + y * cw + from] as number);
        });
        out[at + y * cw + x] = Math.round(sum / norm);
      }
    }
  }
  return out;
}

describe("the colour's slip on real frames", () => {
  let cups: Frames;
  let forest: Frames;
  beforeAll(async () => {
    // Four frames of a slow pan, as the probe reads them (one field of 720 × 288).
    cups = await stillFrames(fixture("cups-640.jpg"), 720, 288, { count: 4, panX: 0.5 });
    forest = await stillFrames(fixture("forest-640.jpg"), 720, 288, { count: 4, panX: 0.5 });
  });
  const read = (f: Frames, frames: Uint8Array[]) => {
    const meter = createChromaShiftMeter(f.width, f.height);
    for (const fr of frames) meter.measure(fr);
    return meter.result();
  };

  it("finds a 4 px slip (2 chroma pixels) through a bleed of 2 chroma pixels and grain", () => {
    // The rule before read this one as in line: its summed peak led no offset by 0.156 of its
    // rise (it asked for 0.2).
    const frames = cups.frames.map((fr, i) => grainy(cups, slipped(cups, fr, 2, 2), 4, 6, i + 1));
    expect(read(cups, frames)).toBe(2);
    expect(
      read(
        cups,
        cups.frames.map((fr) => slipped(cups, fr, 3, 2.5)),
      ),
    ).toBe(3);
  });

  it("leaves colour in line alone, bled or grainy, on colourful and on muted pictures", () => {
    expect(
      read(
        cups,
        cups.frames.map((fr) => slipped(cups, fr, 0, 2)),
      ),
    ).toBe(0);
    const grainyForest = forest.frames.map((fr, i) => grainy(forest, fr, 4, 8, i + 1));
    expect(read(forest, grainyForest)).toBe(0);
  });
});

describe("the colour's slip in a real file", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const path = (name: string) => join(dir, name);
  const SD = "testsrc2=s=720x576:r=25";

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    await Promise.all([
      generate(path("slipped.mp4"), { video: SD, seconds: 1.6, vf: "chromashift=cbh=3:crh=3" }),
      generate(path("in-line.mp4"), { video: SD, seconds: 1.6 }),
    ]);
    // The same frames, stored upside down: shown turned, their colour lies left of the picture.
    const flag = ["-metadata:s:v:0", "rotate=180"];
    await runFfmpeg(["-y", "-i", path("slipped.mp4"), "-c", "copy", ...flag, path("turned.mp4")]);
  }, 60_000);
  afterAll(() => cleanup());

  /** Restores `file` at Enhanced: the plan's correction, and the slip its result measures. */
  async function restoreSlip(file: string) {
    const plan = await probeForPlan(path(file), "enhanced");
    const engine = createFfmpegRestoreEngine({ threads: 2 });
    const out = path(`restored-${file}`);
    try {
      await engine.restore({ inputPath: path(file), outputPath: out, quality: "enhanced" });
    } finally {
      engine.close();
    }
    const after = await probeForPlan(out, "enhanced");
    return { measured: plan.measured.chromaShift, moved: plan.video.chromaShift, after };
  }

  it("is measured and put back by Enhanced, and the result's colour is in line", async () => {
    const { measured, moved, after } = await restoreSlip("slipped.mp4");
    expect(measured).toBe(3);
    expect(moved).toBe(-3);
    expect(after.measured.chromaShift).toBe(0);
  });

  it("is put back the right way in a file stored upside down", async () => {
    const { measured, moved, after } = await restoreSlip("turned.mp4");
    expect(measured).toBe(3);
    expect(moved).toBe(3);
    expect(after.source.rotationCw).toBe(0);
    expect(after.measured.chromaShift).toBe(0);
  });

  it("leaves colour in line alone, and puts it back at Standard too (a repair)", async () => {
    const enhanced = await probeForPlan(path("in-line.mp4"), "enhanced");
    expect(enhanced.measured.chromaShift).toBe(0);
    expect(enhanced.video.chromaShift).toBeNull();
    const standard = await probeForPlan(path("slipped.mp4"), "faithful");
    expect(standard.measured.chromaShift).toBe(3);
    expect(standard.video.chromaShift).toBe(-3);
  });
});
