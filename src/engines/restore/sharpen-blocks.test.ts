/**
 * Studio Max's sharpening on real frames: a soft photograph starved of bits reads soft like a
 * blurred one, and there the mask would sharpen its compression blocks (held-out `grey
 * blocking-800` lost 4.65 dB of luma to it), so the probe's block reading keeps it off. Standard
 * reads the blocks too, and deblocks the starved picture (pp7).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/restore/media.js";
import { fixture, SLOW_ZOOM_SD } from "../../../test/restore-quality/still-frames.js";
import { runFfmpeg } from "../ffmpeg.js";
import { LIMITS } from "./limits.js";
import { probeForPlan } from "./probe.js";

let dir: { dir: string; cleanup: () => Promise<void> };
const at = (name: string) => join(dir.dir, name);

/** A slow 3 s zoom into the cups, softened by a Gaussian of σ 1 px, as PAL SD MPEG-2. */
async function softPan(out: string, rate: string[]) {
  const pan = [...SLOW_ZOOM_SD, "gblur=sigma=1"].join(",");
  const args = ["-y", "-loop", "1", "-i", fixture("cups-640.jpg"), "-vf", pan, "-frames:v", "75"];
  await runFfmpeg([...args, "-c:v", "mpeg2video", ...rate, "-g", "12", "-bf", "2", out]);
}

beforeAll(async () => {
  dir = await tempDir();
  // Starved at 0.8 Mbit/s (the bench's hardest blocking), and the same picture given bits.
  const starved = ["-b:v", "800k", "-maxrate", "800k", "-bufsize", "1000k"];
  await Promise.all([softPan(at("starved.mpg"), starved), softPan(at("soft.mpg"), ["-q:v", "2"])]);
}, 60_000);

afterAll(() => dir.cleanup());

describe("Studio Max's sharpening of a soft picture", () => {
  it("leaves a starved soft picture's blocks unsharpened, and sharpens the same picture given bits", async () => {
    const [starved, soft] = await Promise.all([
      probeForPlan(at("starved.mpg"), "enhanced_max"),
      probeForPlan(at("soft.mpg"), "enhanced_max"),
    ]);
    // Both read soft (σ ≈ 1 px); only the starved one reads blocks.
    for (const p of [starved, soft]) {
      expect(p.measured.blur ?? 0).toBeGreaterThanOrEqual(LIMITS.sharpenBlur);
    }
    expect(starved.measured.blockiness?.ratio ?? 0).toBeGreaterThanOrEqual(LIMITS.blockyRatio);
    expect(starved.measured.blockiness?.flatShare ?? 0).toBeGreaterThanOrEqual(
      LIMITS.blockyFlatFloor,
    );
    expect(starved.video.sharpen).toBeNull();
    expect(starved.notes.join("\n")).toMatch(/soft, but compression blocks: not sharpened/);
    expect(soft.measured.blockiness?.ratio ?? 0).toBeLessThan(LIMITS.blockyRatio);
    expect(soft.video.sharpen).toEqual({ size: LIMITS.sharpenSize, amount: LIMITS.sharpenAmount });
  }, 120_000);
});

describe("Standard's deblock of a starved picture", () => {
  it("reads the blocks at Standard too and takes pp7 at the source's size; the same picture given bits keeps none", async () => {
    const [starved, soft] = await Promise.all([
      probeForPlan(at("starved.mpg"), "faithful"),
      probeForPlan(at("soft.mpg"), "faithful"),
    ]);
    expect(starved.measured.blockiness?.ratio ?? 0).toBeGreaterThanOrEqual(LIMITS.blockyRatio);
    expect(starved.measured.blockiness?.flatShare ?? 0).toBeGreaterThanOrEqual(
      LIMITS.blockyFlatShareStandard,
    );
    expect(starved.video.scale).toBeNull();
    expect(starved.video.deblock).toEqual({ filter: "pp7", qp: LIMITS.deblockPp7Qp });
    expect(soft.measured.blockiness?.ratio ?? 0).toBeLessThan(LIMITS.blockyRatio);
    expect(soft.video.deblock).toBeNull();
  }, 120_000);
});
