/**
 * What the benchmark runs on each damaged clip: the three qualities through the engine, and the
 * references they are held to — the upload itself as it is (scored, not re-encoded), the floor
 * (doing nothing: a plain bicubic scale of the upload to the reference's size, delivered as
 * H.264 like every contender) and, on request, a practitioner's one-line ffmpeg chain.
 */
import { statSync } from "node:fs";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";
import {
  createFfmpegRestoreEngine,
  type FadeHint,
  type RestorePlan,
  type RestoreQuality,
} from "../../src/engines/restore/index.js";
import { probeSource } from "../../src/engines/restore/probe.js";

export type ContenderName = "input" | "floor" | "oneliner" | RestoreQuality;

/** Every contender, in the tables' order. */
export const ALL_CONTENDERS: ContenderName[] = [
  "input",
  "floor",
  "oneliner",
  "faithful",
  "enhanced",
  "enhanced_max",
];

/** What a run measures unless told otherwise: the one-liner only when asked (`--contenders`). */
export const CONTENDERS: ContenderName[] = ALL_CONTENDERS.filter((c) => c !== "oneliner");

export const CONTENDER_LABEL: Record<ContenderName, string> = {
  input: "upload as is",
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
  /** What a customer would say of the levels (bench --fade); absent: the analysis decides. */
  fade?: FadeHint,
): Promise<Run> {
  let plan: RestorePlan | undefined;
  let size = { width: 0, height: 0 };
  if (contender === "input") {
    // Nothing run: the upload is scored as it came (what its owner has without us).
    const out = await probeSource(input);
    const kbps = (statSync(input).size * 8) / 1000 / seconds;
    return { contender, output: input, wallSec: 0, kbps, width: out.width, height: out.height };
  }
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
        ...(fade ? { fade } : {}),
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
