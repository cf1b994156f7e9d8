/** The filters before Enhanced's and Studio Max's scale, run by ffmpeg on small drawn frames. */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasFilter, runFfmpeg } from "../ffmpeg.js";
import { deblockFilter, scaleFilter } from "./chain.js";
import { LIMITS } from "./plan.js";
import type { VideoPlan } from "./types.js";

describe("Enhanced's deblock before the scale", () => {
  /** One 176×144 grey frame drawn by `geq` (luma expression), through `vf`, as its luma. */
  async function luma(expr: string, vf: string): Promise<Buffer> {
    const dir = await mkdtemp(join(tmpdir(), "kinora-deblock-"));
    try {
      const out = join(dir, "out.yuv");
      const input = "color=c=gray:s=176x144:d=0.04,format=yuv420p";
      const chain = `geq=lum='${expr}':cb=128:cr=128${vf ? `,${vf}` : ""},format=gray`;
      await runFfmpeg(
        ["-y", "-f", "lavfi", "-i", input, "-vf", chain, "-frames:v", "1"].concat([
          "-f",
          "rawvideo",
          out,
        ]),
      );
      return await readFile(out);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  /** Sum of the steps across the 8-px grid's vertical edges. */
  const gridSteps = (y: Buffer) => {
    let sum = 0;
    for (let r = 0; r < 144; r++)
      for (let x = 8; x < 176; x += 8)
        sum += Math.abs((y[r * 176 + x] ?? 0) - (y[r * 176 + x - 1] ?? 0));
    return sum;
  };
  const filter = deblockFilter({ alpha: LIMITS.deblockAlpha, beta: LIMITS.deblockBeta });

  it.skipIf(!hasFilter("deblock"))(
    "evens out 2–4 code steps between flat blocks and leaves an 8-code edge and fine texture",
    async () => {
      // Flat 8-px blocks a few codes apart: what MPEG-2 leaves on a smooth sky.
      const blocks = "128+3*mod(floor(X/8)+floor(Y/8),2)";
      expect(gridSteps(await luma(blocks, filter))).toBeLessThan(
        0.5 * gridSteps(await luma(blocks, "")),
      );
      // A step of 8 codes is the picture's own edge, kept to the bit.
      const edges = "128+8*mod(floor(X/8)+floor(Y/8),2)";
      expect(Buffer.compare(await luma(edges, filter), await luma(edges, ""))).toBe(0);
      // Texture (every neighbour 9 codes or more away: no flat side) is kept to the bit.
      const texture = "80+3*mod(X*37+Y*91,17)";
      expect(Buffer.compare(await luma(texture, filter), await luma(texture, ""))).toBe(0);
    },
  );

  it.skipIf(!hasFilter("pp7"))(
    "pp7 (a blocked flat picture's) evens out flat blocks' steps more than the weak deblock",
    async () => {
      const pp7 = deblockFilter({ filter: "pp7", qp: LIMITS.deblockPp7Qp });
      expect(pp7).toBe(`pp7=qp=${LIMITS.deblockPp7Qp}:mode=medium`);
      const blocks = "128+3*mod(floor(X/8)+floor(Y/8),2)";
      const before = gridSteps(await luma(blocks, ""));
      const after = gridSteps(await luma(blocks, pp7));
      expect(after).toBeLessThan(0.5 * before);
      expect(after).toBeLessThanOrEqual(gridSteps(await luma(blocks, filter)));
    },
  );
});

describe("the upscale's colour planes", () => {
  const W = 220;
  const H = 180;
  /** One 176×144 4:2:0 frame of a lavfi `source` (then `then`) through `vf`, as its planes. */
  async function scaled(
    source: string,
    then: string,
    vf: string,
  ): Promise<{ y: Buffer; c: Buffer }> {
    const dir = await mkdtemp(join(tmpdir(), "kinora-scale-"));
    try {
      const out = join(dir, "out.yuv");
      const input = `${source}:s=176x144:d=0.04,format=yuv420p${then}`;
      const args = ["-y", "-f", "lavfi", "-i", input, "-vf", `${vf},format=yuv420p`];
      await runFfmpeg([...args, "-frames:v", "1", "-f", "rawvideo", out]);
      const raw = await readFile(out);
      return { y: raw.subarray(0, W * H), c: raw.subarray(W * H) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const sd = (b: Buffer) => {
    const m = b.reduce((a, x) => a + x, 0) / b.length;
    return Math.sqrt(b.reduce((a, x) => a + (x - m) ** 2, 0) / b.length);
  };
  const scale: NonNullable<VideoPlan["scale"]> = {
    width: W,
    height: H,
    convertMatrixTo709: false,
    filter: "zscale",
  };
  const lanczosOnly = `zscale=w=${W}:h=${H}:filter=lanczos`;

  it.skipIf(!hasFilter("zscale"))(
    "after a denoise keeps less of the grain left in the colour than lanczos, and the luma exactly",
    async () => {
      // Flat grey whose colour planes carry only grain: what the denoiser leaves.
      const grain = ",noise=c1s=30:c2s=30";
      const ours = await scaled("color=c=0x808080", grain, scaleFilter(scale, true));
      const lanczos = await scaled("color=c=0x808080", grain, lanczosOnly);
      // Measured: 11.1 against 15.0 levels.
      expect(sd(ours.c)).toBeLessThan(0.85 * sd(lanczos.c));
      // The luma is resized with lanczos as before, to the level.
      const a = await scaled("testsrc2=r=25", "", scaleFilter(scale, true));
      const b = await scaled("testsrc2=r=25", "", lanczosOnly);
      expect(Buffer.compare(a.y, b.y)).toBe(0);
    },
  );
});
