/**
 * The weak deblock's luma beside a DCT threshold on the colour planes, in one graph (chain.ts
 * deblockFilter): `fspp-colour` (Enhanced's on an enlarged grainy picture) and `pp7-colour`.
 * Run on a starved MPEG-2 clip, the luma is the weak deblock's and the colour the threshold's
 * on the whole picture, byte for byte.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/restore/media.js";
import { runFfmpeg } from "../ffmpeg.js";
import { deblockFilter } from "./chain.js";
import { LIMITS } from "./limits.js";
import type { Deblock } from "./types.js";

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

describe("the weak deblock's luma beside a DCT threshold on the colour", () => {
  const weak = { alpha: LIMITS.deblockAlpha, beta: LIMITS.deblockBeta };
  const frame = (W * H * 3) / 2;

  /** Each plane of `both` is the weak deblock's luma or `colourOnly`'s colour, byte for byte. */
  async function expectPlanes(both: Deblock, colourOnly: string, name: string) {
    const [mixed, luma, colour] = await Promise.all([
      filtered(deblockFilter(both), `${name}-both.yuv`),
      filtered(deblockFilter({ filter: "deblock", ...weak }), `${name}-weak.yuv`),
      filtered(colourOnly, `${name}-colour.yuv`),
    ]);
    expect(mixed.length).toBe(luma.length);
    expect(mixed.length % frame).toBe(0);
    // The two filters differ on this clip, so each plane says which one it came from.
    let lumaDiffers = false;
    let colourDiffers = false;
    for (let f = 0; f < mixed.length; f += frame) {
      const y = [f, f + W * H] as const;
      const c = [f + W * H, f + frame] as const;
      expect(mixed.subarray(...y).equals(luma.subarray(...y))).toBe(true);
      expect(mixed.subarray(...c).equals(colour.subarray(...c))).toBe(true);
      lumaDiffers ||= !luma.subarray(...y).equals(colour.subarray(...y));
      colourDiffers ||= !luma.subarray(...c).equals(colour.subarray(...c));
    }
    expect(lumaDiffers && colourDiffers).toBe(true);
  }

  it("pp7 (`pp7-colour`): the colour planes pp7 gives the whole picture", async () => {
    const qp = LIMITS.deblockPp7Qp;
    await expectPlanes(
      { filter: "pp7-colour", ...weak, qp },
      deblockFilter({ filter: "pp7", qp }),
      "pp7",
    );
  }, 60_000);

  it("fspp (`fspp-colour`, Enhanced's on grain): the colour planes fspp gives the whole picture", async () => {
    const { qp, strength } = LIMITS.grainColour;
    await expectPlanes(
      { filter: "fspp-colour", ...weak, qp, strength },
      `fspp=quality=4:qp=${qp}:strength=${strength}`,
      "fspp",
    );
  }, 60_000);
});
