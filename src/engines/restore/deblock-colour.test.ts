/**
 * Enhanced's deblock of a textured blocked picture (`pp7-colour`, chain.ts deblockFilter): the
 * weak deblock's luma beside pp7's colour, in one graph. Run on a starved MPEG-2 clip, its luma
 * is the weak deblock's and its colour pp7's, byte for byte.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/restore/media.js";
import { runFfmpeg } from "../ffmpeg.js";
import { deblockFilter } from "./chain.js";
import { LIMITS } from "./limits.js";

let dir: { dir: string; cleanup: () => Promise<void> };
const at = (name: string) => join(dir.dir, name);
const W = 176;
const H = 144;

beforeAll(async () => {
  dir = await tempDir();
  const src = ["-f", "lavfi", "-i", `testsrc2=s=${W}x${H}:r=25:d=0.4`, "-pix_fmt", "yuv420p"];
  await runFfmpeg(["-y", ...src, "-c:v", "mpeg2video", "-b:v", "60k", "-g", "12", at("s.mpg")]);
}, 60_000);

afterAll(() => dir.cleanup());

async function filtered(vf: string, name: string): Promise<Buffer> {
  const out = at(name);
  await runFfmpeg([
    "-y",
    "-i",
    at("s.mpg"),
    "-vf",
    vf,
    "-f",
    "rawvideo",
    "-pix_fmt",
    "yuv420p",
    out,
  ]);
  return readFile(out);
}

describe("the weak deblock's luma with pp7's colour", () => {
  it("takes the luma from the weak deblock and the colour planes from pp7", async () => {
    const weak = { alpha: LIMITS.deblockAlpha, beta: LIMITS.deblockBeta };
    const qp = LIMITS.deblockPp7Qp;
    const [both, luma, colour] = await Promise.all([
      filtered(deblockFilter({ filter: "pp7-colour", ...weak, qp }), "both.yuv"),
      filtered(deblockFilter({ filter: "deblock", ...weak }), "weak.yuv"),
      filtered(deblockFilter({ filter: "pp7", qp }), "pp7.yuv"),
    ]);
    const frame = (W * H * 3) / 2;
    expect(both.length).toBe(luma.length);
    expect(both.length % frame).toBe(0);
    // The two filters differ on this clip, so each plane says which one it came from.
    let lumaDiffers = false;
    let colourDiffers = false;
    for (let f = 0; f < both.length; f += frame) {
      const y = [f, f + W * H] as const;
      const c = [f + W * H, f + frame] as const;
      expect(both.subarray(...y).equals(luma.subarray(...y))).toBe(true);
      expect(both.subarray(...c).equals(colour.subarray(...c))).toBe(true);
      lumaDiffers ||= !luma.subarray(...y).equals(colour.subarray(...y));
      colourDiffers ||= !luma.subarray(...c).equals(colour.subarray(...c));
    }
    expect(lumaDiffers && colourDiffers).toBe(true);
  }, 60_000);
});
