/**
 * Studio Max's sharpening of a picture enlarged from a coarser grid. On real frames: a
 * photograph halved and enlarged back has its rows on the half-width grid (grid.ts); the same
 * pan at full resolution reads no grid and is left alone; Enhanced does not read the grid. This
 * photograph's edges read soft once halved, so the decision itself is checked on the plan: a
 * grid read sharpens a picture whose edges read sharp (as `moss lowres-2`'s do on the bench).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/restore/media.js";
import { measured, plan } from "../../../test/restore/plan-input.js";
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
    expect(full.measured.blur ?? 1).toBeLessThan(LIMITS.sharpenBlur);
    expect(full.video.sharpen).toBeNull();

    // Only Studio Max reads the grid (and only it sharpens).
    expect(enhanced.measured.grid ?? null).toBeNull();
    expect(enhanced.video.sharpen).toBeNull();
  }, 120_000);
});

describe("the sharpening decision with a grid read", () => {
  const sharp = LIMITS.sharpenBlur - 0.2;
  const mask = { size: LIMITS.sharpenSize, amount: LIMITS.sharpenAmount };
  const onGrid = { factor: 2, contrast: LIMITS.upscaledGridContrast - 0.1 };
  const offGrid = { factor: 2, contrast: LIMITS.upscaledGridContrast + 0.1 };

  it("sharpens a picture whose edges read sharp when its rows sit on a coarser grid", () => {
    const p = plan("enhanced_max", { measured: measured({ blur: sharp, grid: onGrid }) });
    expect(p.video.sharpen).toEqual(mask);
    expect(p.notes.join("\n")).toMatch(/enlarged 2× from a coarser grid .* → sharpen/);
    // The same edges on no grid: left as they are.
    const off = plan("enhanced_max", { measured: measured({ blur: sharp, grid: offGrid }) });
    expect(off.video.sharpen).toBeNull();
  });

  it("reads a grid where the edges say nothing, and leaves compression blocks unsharpened", () => {
    const fewEdges = plan("enhanced_max", { measured: measured({ blur: null, grid: onGrid }) });
    expect(fewEdges.video.sharpen).toEqual(mask);
    const flat = plan("enhanced_max", { measured: measured({ blur: null, grid: offGrid }) });
    expect(flat.video.sharpen).toBeNull();
    expect(flat.notes.join("\n")).toMatch(/too few strong edges to read, no enlargement read/);
    const blocks = { ratio: LIMITS.blockyRatio + 1, flatShare: LIMITS.blockyFlatFloor + 0.2 };
    const blocked = plan("enhanced_max", {
      measured: measured({ blur: sharp, grid: onGrid, blockiness: blocks }),
    });
    expect(blocked.video.sharpen).toBeNull();
  });

  it("is Studio Max's alone", () => {
    for (const quality of ["faithful", "enhanced"] as const) {
      const p = plan(quality, { measured: measured({ blur: sharp, grid: onGrid }) });
      expect(p.video.sharpen).toBeNull();
    }
  });
});
