/**
 * Restore wall time through the engine (measure + probe + restore) vs bare ffmpeg running the
 * same argument list (buildRestoreArgs of the same plan) on the same input, and the Standard
 * (faithful) speed as × realtime on a 480p input.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  buildRestoreArgs,
  createFfmpegRestoreEngine,
  probeForPlan,
  type RestoreQuality,
} from "../src/engines/restore/index.js";
import type { Figure } from "./lib.js";

const run = promisify(execFile);

async function make480p(file: string, seconds: number) {
  await run("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    `testsrc2=size=640x480:rate=25:duration=${seconds}`,
    "-f",
    "lavfi",
    "-i",
    `anoisesrc=d=${seconds}:c=pink:a=0.05`,
    "-vf",
    "noise=alls=12:allf=t",
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-crf",
    "23",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-shortest",
    file,
  ]);
}

export async function benchRestore(
  seconds: number,
  quality: RestoreQuality = "faithful",
): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-restore-"));
  try {
    const input = path.join(dir, "in.mp4");
    await make480p(input, seconds);
    const engine = createFfmpegRestoreEngine();
    const t0 = performance.now();
    await engine.restore({ inputPath: input, outputPath: path.join(dir, "engine.mp4"), quality });
    const engineSec = (performance.now() - t0) / 1000;

    const plan = await probeForPlan(input, quality);
    const args = buildRestoreArgs(plan, input, path.join(dir, "bare.mp4"));
    const t1 = performance.now();
    await run("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", ...args], {
      maxBuffer: 64 * 1024 * 1024,
    });
    const bareSec = (performance.now() - t1) / 1000;
    return [
      {
        name: `restore ${quality} 480p ${seconds}s: engine wall`,
        value: engineSec,
        unit: "s",
        baselineName: "bare ffmpeg same args",
        baseline: bareSec,
        better: "lower",
        aim: "≤ 1.5 (probe passes)",
      },
      {
        name: `restore ${quality} 480p speed`,
        value: seconds / engineSec,
        unit: "×rt",
        baselineName: "bare ffmpeg",
        baseline: seconds / bareSec,
        better: "higher",
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
