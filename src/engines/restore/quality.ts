/**
 * Full-reference quality of a restoration: PSNR and SSIM of `distortedPath` against
 * `referencePath`, with the distorted video scaled to the reference's size and YCbCr matrix
 * (an enhanced output is larger and may be BT.709 while its SD reference is BT.601).
 * Both should have the same frame rate; frames pair by timestamp from each file's start.
 */
import { runFfmpeg } from "../ffmpeg.js";
import { parseSourceInfo } from "./analysis.js";
import { probeJson } from "./run.js";

export interface QualityScore {
  /** Mean PSNR over Y, U and V, dB. */
  psnr: number;
  psnrY: number;
  /** SSIM over all planes, 0–1. */
  ssim: number;
  ssimY: number;
}

export function parseQualityLog(stderr: string): QualityScore {
  const psnr = /PSNR y:([\d.]+|inf) u:[\d.inf]+ v:[\d.inf]+ average:([\d.]+|inf)/.exec(stderr);
  const ssim = /SSIM Y:([\d.]+) .*All:([\d.]+)/.exec(stderr);
  if (!psnr || !ssim) throw new Error("ffmpeg printed no PSNR/SSIM summary");
  const db = (s: string | undefined) => (s === "inf" ? Number.POSITIVE_INFINITY : Number(s));
  return { psnr: db(psnr[2]), psnrY: db(psnr[1]), ssim: Number(ssim[2]), ssimY: Number(ssim[1]) };
}

export async function measureQuality(
  referencePath: string,
  distortedPath: string,
  signal?: AbortSignal,
): Promise<QualityScore> {
  const ref = parseSourceInfo(await probeJson(referencePath, signal));
  const matrix = ref.colorMatrix ?? (ref.height >= 720 ? "bt709" : "bt601");
  const graph = [
    `[0:v]setpts=PTS-STARTPTS,format=yuv420p,split=2[r1][r2]`,
    // scale reads the distorted frame's own matrix tag (auto) and converts to the reference's.
    `[1:v]setpts=PTS-STARTPTS,scale=${ref.width}:${ref.height}:flags=lanczos:out_color_matrix=${matrix},format=yuv420p,setsar=${ref.sarNum}/${ref.sarDen},split=2[d1][d2]`,
    "[d1][r1]psnr=shortest=1[p]",
    "[d2][r2]ssim=shortest=1[s]",
  ].join(";");
  const args = ["-noautorotate", "-i", referencePath, "-noautorotate", "-i", distortedPath];
  args.push(
    "-filter_complex",
    graph,
    "-map",
    "[p]",
    "-f",
    "null",
    "-",
    "-map",
    "[s]",
    "-f",
    "null",
    "-",
  );
  const run = await runFfmpeg(args, { signal });
  return parseQualityLog(run.stderr);
}
