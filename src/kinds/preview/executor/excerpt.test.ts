/**
 * The preview's window on a real file: the restore engine's analysis of each candidate finds
 * the grainy end of a clip that is clean before it, and the excerpt cut from there is that long.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { plainClip } from "../../../../test/preview/media.js";
import { cutExcerpt, worstWindow } from "./excerpt.js";

const run = promisify(execFile);

describe("worstWindow", () => {
  it("finds the grain in the last seconds and cuts 5 s from there", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "kinora-excerpt-"));
    const clip = await plainClip(dir, 9, "late-grain.mp4", 6);
    const signal = new AbortController().signal;
    const w = await worstWindow({
      inputPath: clip.path,
      durationSec: 9,
      lengthSec: 5,
      workDir: dir,
      signal,
    });
    expect(w.startSec).toBeGreaterThanOrEqual(3);
    expect(w.lengthSec).toBe(5);
    expect(w.found[0]).toMatch(/^grain σ/);
    const out = path.join(dir, "excerpt.mkv");
    await cutExcerpt(clip.path, w, out, signal);
    const { stdout } = await run("ffprobe", [
      "-v",
      "error",
      "-show_entries",
      "format=duration",
      "-of",
      "csv=p=0",
      out,
    ]);
    expect(Number(stdout)).toBeCloseTo(5, 0);
  }, 30_000);

  it("takes a video no longer than the excerpt whole", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "kinora-excerpt-"));
    const clip = await plainClip(dir, 2, "short.mp4");
    const w = await worstWindow({
      inputPath: clip.path,
      durationSec: 2,
      lengthSec: 5,
      workDir: dir,
      signal: new AbortController().signal,
    });
    expect(w).toMatchObject({ startSec: 0, lengthSec: 2 });
    expect(w.found).toEqual(["no damage past the engine's thresholds"]);
  }, 30_000);
});
