/**
 * What the benchmark runs on each damaged clip: the three qualities through the engine, and two
 * references any restore must beat — the naive floor (a plain bicubic scale of the input to the
 * reference's size: doing nothing) and a practitioner's one-line ffmpeg chain.
 */
import { statSync } from "node:fs";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";
import {
  createFfmpegRestoreEngine,
  type RestorePlan,
  type RestoreQuality,
} from "../../src/engines/restore/index.js";
import { probeSource } from "../../src/engines/restore/probe.js";

export type ContenderName = "floor" | "oneliner" | RestoreQuality;

export const CONTENDERS: ContenderName[] = [
  "floor",
  "oneliner",
  "faithful",
  "enhanced",
  "enhanced_max",
];

export const CONTENDER_LABEL: Record<ContenderName, string> = {
  floor: "floor (bicubic)",
  oneliner: "one-line chain",
  faithful: "Standard",
  enhanced: "Enhanced",
  enhanced_max: "Studio Max",
};

export interface Run {
  contender: ContenderName;
  output: string;
  wallSec: number;
  /** Output video+audio bitrate, kbit/s. */
  kbps: number;
  width: number;
  height: number;
  plan?: RestorePlan;
}

/** bwdif + hqdn3d + 2× lanczos + mild unsharp: what a practitioner would type. */
export const ONE_LINER =
  "bwdif=mode=send_frame:parity=auto:deint=interlaced,hqdn3d=4:3:6:4.5," +
  "scale=iw*sar*2:ih*2:flags=lanczos,setsar=1,unsharp=5:5:0.5:5:5:0,format=yuv420p";

const engine = createFfmpegRestoreEngine({ threads: 2 });

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await fn();
  return [value, (performance.now() - t0) / 1000];
}

/** Runs one contender on `input`, writing `output`. */
export async function runContender(
  contender: ContenderName,
  input: string,
  output: string,
  reference: { width: number; height: number },
  seconds: number,
): Promise<Run> {
  let plan: RestorePlan | undefined;
  let size = { width: 0, height: 0 };
  const [, wallSec] = await timed(async () => {
    if (contender === "floor") {
      // Nothing restored: a bicubic scale in the input's own BT.601 (tagged as such), delivered
      // the way every contender is, as H.264 at CRF 18 (uncapped).
      const vf = `scale=${reference.width}:${reference.height}:flags=bicubic,setsar=1`;
      await runFfmpeg(
        ["-y", "-i", input, "-vf", vf, "-c:v", "libx264", "-preset", "veryfast"].concat([
          "-crf",
          "18",
          "-colorspace",
          "bt470bg",
          "-c:a",
          "aac",
          "-b:a",
          "160k",
          output,
        ]),
      );
    } else if (contender === "oneliner") {
      await runFfmpeg(
        ["-y", "-i", input, "-vf", ONE_LINER, "-c:v", "libx264", "-preset"].concat([
          "veryfast",
          "-crf",
          "18",
          "-c:a",
          "aac",
          "-b:a",
          "160k",
          output,
        ]),
      );
    } else {
      const result = await engine.restore({
        inputPath: input,
        outputPath: output,
        quality: contender,
      });
      plan = result.plan;
      size = { width: result.width, height: result.height };
    }
  });
  if (!plan) {
    const out = await probeSource(output);
    size = { width: out.width, height: out.height };
  }
  const kbps = (statSync(output).size * 8) / 1000 / seconds;
  return { contender, output, wallSec, kbps, ...size, plan };
}
