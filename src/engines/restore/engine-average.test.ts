import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, summarise, tempDir } from "../../../test/restore/media.js";
import { ffprobeJson } from "../ffmpeg.js";
import { averagedDenoise } from "./chain-average.js";
import { createFfmpegRestoreEngine } from "./index.js";
import { analyseForSegments, restoreSegment, segmentJobs } from "./segment-run.js";

const TAPE_GRAIN = "noise=c0s=20:c1s=48:c2s=48:allf=t";
const engine = createFfmpegRestoreEngine({ threads: 2, spareAnalysis: false });
let dir: string;
let cleanup: () => Promise<void>;
const path = (name: string) => join(dir, name);

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  // A small grainy clip with sound: grain that changes every frame, its colour's stronger than
  // its luma's, as on tape (where Studio Max averages along the motion: DENOISE.averageWhere).
  await generate(path("grain.mp4"), {
    video: "testsrc2=s=176x144:r=25",
    seconds: 1.2,
    audio: "sine=f=440:sample_rate=44100",
    vf: TAPE_GRAIN,
  });
}, 60_000);

afterAll(async () => {
  engine.close();
  await cleanup();
});

async function frameCount(file: string): Promise<number> {
  const probe = await ffprobeJson([
    "-count_frames",
    "-select_streams",
    "v:0",
    "-show_streams",
    file,
  ]);
  const [stream] = probe.streams as Array<Record<string, unknown>>;
  return Number(stream?.nb_read_frames);
}

describe("Studio Max's motion-following average in the engine", () => {
  it("restores a grainy clip through the two processes, the sound joined beside it", async () => {
    const out = path("grain-max.mp4");
    const progress: number[] = [];
    const result = await engine.restore({
      inputPath: path("grain.mp4"),
      outputPath: out,
      quality: "enhanced_max",
      onProgress: (f) => progress.push(f),
    });
    const nl = averagedDenoise(result.plan);
    expect(nl).toMatchObject({ filter: "nlmeans", motionAverage: { threshold: 40, final: 0.4 } });
    expect(result.plan.notes.join("\n")).toMatch(/averaged along the motion/);
    expect(result.soundPass).toBe("joined");
    expect(await frameCount(out)).toBe(30);
    const s = await summarise(out);
    expect(s.video).toMatchObject({ codec: "h264", width: result.width, height: result.height });
    expect(s.audio?.codec).toBe("aac");
    expect(result.durationSec).toBeCloseTo(1.2, 1);
    expect(progress.at(-1)).toBe(1);
    expect(progress.some((f) => f > 0.05 && f < 0.99)).toBe(true);
  }, 60_000);

  it("leaves Enhanced's one-process chain alone", async () => {
    const result = await engine.restore({
      inputPath: path("grain.mp4"),
      outputPath: path("grain-enhanced.mp4"),
      quality: "enhanced",
    });
    expect(averagedDenoise(result.plan)).toBeNull();
    // Not its soundPass: "with-picture" or "joined" depends on which analysis finished first,
    // and on a loaded machine the sound's can finish last (seen once under a load of 8).
  }, 60_000);

  it("stops both ffmpegs and leaves no file behind when aborted", async () => {
    const controller = new AbortController();
    const out = path("grain-aborted.mp4");
    const started = Date.now();
    const pending = engine.restore({
      inputPath: path("grain.mp4"),
      outputPath: out,
      quality: "enhanced_max",
      signal: controller.signal,
      // Once the averaged pass is under way (past the probe's share).
      onProgress: (f) => f > 0.05 && controller.abort(new Error("cancelled by test")),
    });
    await expect(pending).rejects.toThrow("cancelled by test");
    expect(Date.now() - started).toBeLessThan(20_000);
    for (const f of [out, `${out}.partial.mp4`, `${out}.partial.video.mp4`]) {
      expect(existsSync(f)).toBe(false);
    }
  }, 60_000);

  it("restores each segment of a grainy clip through the two processes, and each ends at its cut", async () => {
    const input = path("grain-gop.mp4");
    await generate(input, {
      video: "testsrc2=s=176x144:r=25",
      seconds: 3,
      vf: TAPE_GRAIN,
      codec: ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "14", "-g", "25"],
    });
    const analysis = await analyseForSegments(input, "enhanced_max", { segmentSec: 1 });
    expect(averagedDenoise(analysis.plan)).not.toBeNull();
    const jobs = segmentJobs(analysis.plan, analysis.cut, input);
    expect(jobs.length).toBeGreaterThanOrEqual(2);
    let frames = 0;
    for (const [i, job] of jobs.entries()) {
      const out = path(`grain-seg-${i}.mp4`);
      await restoreSegment(job, out);
      frames += await frameCount(out);
    }
    expect(frames).toBe(75);
  }, 120_000);
});
