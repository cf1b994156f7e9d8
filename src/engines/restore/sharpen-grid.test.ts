/**
 * Studio Max's sharpening of a picture enlarged from a coarser grid, on real frames: a
 * photograph halved and enlarged back keeps sharp-looking edges (its edge reading says sharp),
 * but its rows sit on the half-width grid (grid.ts), so Studio Max sharpens it; the same pan at
 * full resolution reads no grid and is left alone; Enhanced does not read the grid.
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

/** A slow 3 s zoom into the ladybird as PAL SD MPEG-2, with `damage` filters after it. */
async function pan(out: string, damage: string[]) {
  const vf = [...SLOW_ZOOM_SD, ...damage].join(",");
  const args = [
    "-y",
    "-loop",
    "1",
    "-i",
    fixture("ladybird-1024.jpg"),
    "-vf",
    vf,
    "-frames:v",
    "75",
  ];
  await runFfmpeg([...args, "-c:v", "mpeg2video", "-b:v", "8M", "-g", "12", "-bf", "2", out]);
}

beforeAll(async () => {
  dir = await tempDir();
  await Promise.all([
    pan(at("full.mpg"), []),
    pan(at("halved.mpg"), ["scale=360:288:flags=area", "scale=720:576:flags=bilinear"]),
  ]);
}, 60_000);

afterAll(() => dir.cleanup());

describe("Studio Max's sharpening of a picture enlarged from a coarser grid", () => {
  it("reads the half-width grid and sharpens, where the full-resolution pan reads none", async () => {
    const [full, halved, enhanced] = await Promise.all([
      probeForPlan(at("full.mpg"), "enhanced_max"),
      probeForPlan(at("halved.mpg"), "enhanced_max"),
      probeForPlan(at("halved.mpg"), "enhanced"),
    ]);
    expect(halved.measured.grid?.factor).toBe(2);
    expect(halved.measured.grid?.contrast ?? 1).toBeLessThanOrEqual(LIMITS.upscaledGridContrast);
    expect(halved.video.sharpen).toEqual({
      size: LIMITS.sharpenSize,
      amount: LIMITS.sharpenAmount,
    });
    expect(halved.notes.join("\n")).toMatch(/enlarged 2× from a coarser grid .* → sharpen/);

    expect(full.measured.grid?.contrast ?? 0).toBeGreaterThan(LIMITS.upscaledGridContrast);
    expect(full.notes.join("\n")).not.toMatch(/coarser grid/);
    // The halved picture's edges read as sharp as the full one's, within the edge reading's
    // step: by them alone it would not have been sharpened where the full one is not.
    if ((full.measured.blur ?? 1) < LIMITS.sharpenBlur) {
      expect(full.video.sharpen).toBeNull();
    }

    // Only Studio Max reads the grid (and only it sharpens).
    expect(enhanced.measured.grid ?? null).toBeNull();
    expect(enhanced.video.sharpen).toBeNull();
  }, 120_000);
});
