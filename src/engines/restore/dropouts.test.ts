/**
 * Tape dropouts: white streaks drawn on single frames of a real photograph panned fast are found
 * and mended from the frames either side, and the same pan without streaks comes through the
 * repair unchanged, pixel for pixel (no smearing of clean motion). On a grainy pan, a streak that
 * runs from the dark background onto a white cup (where it hardly stands out) is mended along
 * its whole length, and the grain alone starts no repair. Over a bright, grainy picture, where a
 * white streak stands only 13–60 codes out, faint streaks are found and mended, and the same pan
 * without them comes through unchanged.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/restore/media.js";
import { fixture } from "../../../test/restore-quality/still-frames.js";
import { runFfmpeg } from "../ffmpeg.js";
import { decideDropouts, dropoutRepairFilter } from "./dropouts.js";
import { LIMITS } from "./limits.js";

const W = 480;
const H = 360;
const FRAMES = 20;
/** Streaks: frame, top line, left, width, lines. */
const STREAKS: Array<[number, number, number, number, number]> = [
  [5, 100, 40, 200, 2],
  [5, 250, 200, 160, 3],
  [12, 60, 120, 240, 2],
  [16, 300, 10, 300, 1],
];

/** Temporal film grain (σ about 7 codes). */
const GRAIN = "noise=alls=20:allf=t";
/** A streak across the grainy pan: frame, top line, left, width, lines. */
const LONG_STREAK: [number, number, number, number, number] = [10, 200, 40, 400, 2];
/**
 * The pan squeezed into bright codes (160–220: a sunlit wall, a pale sky), grainy: a white streak
 * drawn at 90 % (as a dropout's white is rarely full) stands 13–60 codes above it.
 */
const BRIGHT = `lutyuv=y='160+(val-16)*60/219',${GRAIN}`;
/** Faint streaks on the bright pan: frame, top line, left, width, lines. */
const FAINT: Array<[number, number, number, number, number]> = [
  [7, 90, 60, 180, 2],
  [13, 240, 150, 260, 1],
  [13, 300, 20, 120, 3],
];

let dir: { dir: string; cleanup: () => Promise<void> };
const at = (name: string) => join(dir.dir, name);

/** Raw yuv420p frames of a file (passed through `vf` first). */
async function frames(file: string, vf = "null"): Promise<Uint8Array[]> {
  const out = `${file}.${Math.random().toString(36).slice(2)}.yuv`;
  await runFfmpeg(["-y", "-i", file, "-vf", `${vf},format=yuv420p`, "-f", "rawvideo", out]);
  const bytes = await readFile(out);
  const size = (W * H * 3) / 2;
  const list: Uint8Array[] = [];
  for (let i = 0; i + size <= bytes.length; i += size) list.push(bytes.subarray(i, i + size));
  return list;
}

function lumaPsnr(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < W * H; i++) sum += ((a[i] as number) - (b[i] as number)) ** 2;
  return sum === 0 ? 99 : 10 * Math.log10((255 * 255 * W * H) / sum);
}

beforeAll(async () => {
  dir = await tempDir();
  // A fast pan (6 px a frame) over the cups: strong edges moving, the hardest case for a
  // temporal outlier test.
  const pan = [
    "crop='min(iw,ih*4/3)':'min(ih,iw*3/4)'",
    `scale=${W * 2}:${H * 2}`,
    `crop=${W}:${H}:'6*n':'${H / 2}'`,
    "format=yuv420p",
  ].join(",");
  const args = ["-y", "-loop", "1", "-i", fixture("cups-640.jpg"), "-vf", pan];
  await runFfmpeg([...args, "-frames:v", String(FRAMES), "-c:v", "ffv1", at("pan.mkv")]);
  const boxes = STREAKS.map(
    ([f, y, x, w, h]) =>
      `drawbox=x=${x}:y=${y}:w=${w}:h=${h}:color=white:t=fill:enable='eq(n,${f})'`,
  );
  // The same pan with film grain, and one streak on it running from the dark background onto
  // the white cups (x 128 on), where a white line reads a fraction of what it reads on the dark.
  await runFfmpeg(["-y", "-i", at("pan.mkv"), "-vf", GRAIN, "-c:v", "ffv1", at("grain.mkv")]);
  const [f, y, x, w, h] = LONG_STREAK;
  const long = `drawbox=x=${x}:y=${y}:w=${w}:h=${h}:color=white:t=fill:enable='eq(n,${f})'`;
  await runFfmpeg([
    "-y",
    "-i",
    at("grain.mkv"),
    "-vf",
    long,
    "-c:v",
    "ffv1",
    at("grain-streak.mkv"),
  ]);
  const faint = FAINT.map(
    ([f, y, x, w, h]) =>
      `drawbox=x=${x}:y=${y}:w=${w}:h=${h}:color=white@0.9:t=fill:enable='eq(n,${f})'`,
  );
  await runFfmpeg(["-y", "-i", at("pan.mkv"), "-vf", BRIGHT, "-c:v", "ffv1", at("bright.mkv")]);
  await runFfmpeg([
    "-y",
    "-i",
    at("bright.mkv"),
    "-vf",
    faint.join(","),
    "-c:v",
    "ffv1",
    at("bright-streaks.mkv"),
  ]);
  await runFfmpeg([
    "-y",
    "-i",
    at("pan.mkv"),
    "-vf",
    boxes.join(","),
    "-c:v",
    "ffv1",
    at("streaks.mkv"),
  ]);
}, 60_000);

afterAll(() => dir?.cleanup());

const repair = () => dropoutRepairFilter({ width: W, height: H, threshold: LIMITS.dropoutTopHat });

describe("tape dropout repair", () => {
  it("is planned at every even size when this ffmpeg has the filters", () => {
    const notes: string[] = [];
    expect(decideDropouts(W, H, { has: () => true }, notes)).toEqual({
      width: W,
      height: H,
      threshold: LIMITS.dropoutTopHat,
    });
    expect(decideDropouts(W + 1, H, { has: () => true }, [])).toBeNull();
    expect(decideDropouts(W, H, { has: (f) => f !== "maskedmerge" }, [])).toBeNull();
  });

  it("mends streaks from the frames either side, on a fast pan", async () => {
    const [truth, damaged, mended] = await Promise.all([
      frames(at("pan.mkv")),
      frames(at("streaks.mkv")),
      frames(at("streaks.mkv"), repair()),
    ]);
    for (const f of [...new Set(STREAKS.map(([frame]) => frame))]) {
      const before = lumaPsnr(damaged[f] as Uint8Array, truth[f] as Uint8Array);
      const after = lumaPsnr(mended[f] as Uint8Array, truth[f] as Uint8Array);
      // Damaged 29–33 dB; mended 36–40: at 6 px a frame the mean of the neighbours is itself
      // off on the cups' edges, but the streaks are gone.
      expect(before, `frame ${f}`).toBeLessThan(33);
      expect(after, `frame ${f}`).toBeGreaterThan(before + 5);
    }
    // Frames without streaks are not touched.
    expect(lumaPsnr(mended[8] as Uint8Array, truth[8] as Uint8Array)).toBe(99);
  });

  it("follows a streak onto a bright picture, on a grainy pan", async () => {
    const [truth, damaged, mended] = await Promise.all([
      frames(at("grain.mkv")),
      frames(at("grain-streak.mkv")),
      frames(at("grain-streak.mkv"), repair()),
    ]);
    const [f, y, x, w, h] = LONG_STREAK;
    // Mean luma error over the streak's pixels, in stretches of 80 px along it.
    const stretches = (frame: Uint8Array) =>
      Array.from({ length: w / 80 }, (_, k) => {
        let sum = 0;
        for (let row = y; row < y + h; row++) {
          for (let col = x + 80 * k; col < x + 80 * (k + 1); col++) {
            const i = row * W + col;
            sum += Math.abs((frame[i] as number) - ((truth[f] as Uint8Array)[i] as number));
          }
        }
        return sum / (80 * h);
      });
    const before = stretches(damaged[f] as Uint8Array);
    const after = stretches(mended[f] as Uint8Array);
    // Damaged: 70–200 codes off. Mended: 10–23 along the whole streak (the grain, and the fill
    // from frames 6 px apart); without following the row, the four stretches past x 120 (over
    // the cups, where the streak reads below the threshold) kept 50–86.
    for (const [k, e] of before.entries()) {
      expect(e, `stretch ${k} damaged`).toBeGreaterThan(20);
      expect(after[k], `stretch ${k} mended`).toBeLessThan(e / 3);
    }
  });

  it("mends faint streaks over a bright, grainy picture", async () => {
    const [truth, damaged, mended] = await Promise.all([
      frames(at("bright.mkv")),
      frames(at("bright-streaks.mkv")),
      frames(at("bright-streaks.mkv"), repair()),
    ]);
    // Mean luma error over each streak's pixels.
    const error = (frame: Uint8Array, [f, y, x, w, h]: (typeof FAINT)[number]) => {
      let sum = 0;
      for (let row = y; row < y + h; row++) {
        for (let col = x; col < x + w; col++) {
          const i = row * W + col;
          sum += Math.abs((frame[i] as number) - ((truth[f] as Uint8Array)[i] as number));
        }
      }
      return sum / (w * h);
    };
    for (const streak of FAINT) {
      const f = streak[0];
      const before = error(damaged[f] as Uint8Array, streak);
      const after = error(mended[f] as Uint8Array, streak);
      expect(before, `streak at line ${streak[1]} damaged`).toBeGreaterThan(20);
      expect(after, `streak at line ${streak[1]} mended`).toBeLessThan(before / 2);
    }
    // Frames without streaks are not touched.
    expect(Buffer.compare(mended[9] as Uint8Array, damaged[9] as Uint8Array)).toBe(0);
  });

  it("starts no repair on a bright, grainy pan without streaks", async () => {
    const [truth, out] = await Promise.all([
      frames(at("bright.mkv")),
      frames(at("bright.mkv"), repair()),
    ]);
    out.forEach((f, i) => {
      expect(Buffer.compare(f, truth[i] as Uint8Array), `frame ${i}`).toBe(0);
    });
  });

  it("starts no repair on grain alone", async () => {
    const [truth, out] = await Promise.all([
      frames(at("grain.mkv")),
      frames(at("grain.mkv"), repair()),
    ]);
    out.forEach((f, i) => {
      expect(Buffer.compare(f, truth[i] as Uint8Array), `frame ${i}`).toBe(0);
    });
  });

  it("passes the clean fast pan through unchanged, pixel for pixel", async () => {
    const [truth, out] = await Promise.all([
      frames(at("pan.mkv")),
      frames(at("pan.mkv"), repair()),
    ]);
    expect(out.length).toBe(FRAMES);
    out.forEach((f, i) => {
      expect(Buffer.compare(f, truth[i] as Uint8Array), `frame ${i}`).toBe(0);
    });
  });
});
