/**
 * Full-reference quality of a restoration: PSNR and SSIM, per plane, of `distortedPath` against
 * `referencePath`. The distorted video is brought to the reference's size and YCbCr matrix
 * through each file's own matrix (an Enhanced output is larger and tagged BT.709 while its SD
 * input was BT.601) with zscale, which converts at full chroma resolution: swscale's YCbCr →
 * YCbCr matrix change on 4:2:0 leaks chroma into luma and would cost the comparison ~1.5 dB of
 * its own. A distorted video at twice the reference's rate (field-rate deinterlacing, motion
 * interpolation) is compared on its even frames, the moments the reference shows.
 */
import { readFile } from "node:fs/promises";
import { hasFilter, runFfmpeg } from "../ffmpeg.js";
import { parseSourceInfo } from "./analysis.js";
import { escapeFilterValue } from "./chain.js";
import { probeJson } from "./run.js";
import type { SourceInfo } from "./types.js";

export interface QualityScore {
  /** Mean PSNR over Y, U and V (ffmpeg's weighting), dB. */
  psnr: number;
  psnrY: number;
  /** Mean of the U and V planes' PSNR, dB. */
  psnrC: number;
  /** SSIM over all planes, 0–1. */
  ssim: number;
  ssimY: number;
  /** Mean of the U and V planes' SSIM. */
  ssimC: number;
  /** Luma PSNR of each compared frame, dB (only when asked for: `framesPath`). */
  framePsnrY?: number[];
}

/** Each frame's luma PSNR from the psnr filter's `stats_file` (one `n:… psnr_y:…` line each). */
export function parsePsnrFrames(stats: string): number[] {
  return [...stats.matchAll(/psnr_y:([\d.]+|inf)/g)].map((m) => dB(m[1]));
}

const dB = (s: string | undefined) => (s === "inf" ? Number.POSITIVE_INFINITY : Number(s));

export function parseQualityLog(stderr: string): QualityScore {
  const psnr = /PSNR y:([\d.]+|inf) u:([\d.]+|inf) v:([\d.]+|inf) average:([\d.]+|inf)/.exec(
    stderr,
  );
  const ssim = /SSIM Y:([\d.]+) \S+ U:([\d.]+) \S+ V:([\d.]+) \S+ All:([\d.]+)/.exec(stderr);
  if (!psnr || !ssim) throw new Error("ffmpeg printed no PSNR/SSIM summary");
  return {
    psnr: dB(psnr[4]),
    psnrY: dB(psnr[1]),
    psnrC: (dB(psnr[2]) + dB(psnr[3])) / 2,
    ssim: Number(ssim[4]),
    ssimY: Number(ssim[1]),
    ssimC: (Number(ssim[2]) + Number(ssim[3])) / 2,
  };
}

/** The file's YCbCr matrix: its tag, else what players assume for its size. */
export function matrixOf(info: SourceInfo): "bt601" | "bt709" {
  const sd = Math.max(info.width, info.height) < 1280 && Math.min(info.width, info.height) < 720;
  return info.colorMatrix ?? (sd ? "bt601" : "bt709");
}

const ZSCALE_MATRIX = { bt601: "470bg", bt709: "709" } as const;

/** Resize + matrix change, at full chroma resolution when this ffmpeg has zscale. */
function toReference(ref: SourceInfo, from: "bt601" | "bt709", to: "bt601" | "bt709"): string {
  if (hasFilter("zscale")) {
    return `zscale=w=${ref.width}:h=${ref.height}:filter=lanczos:matrixin=${ZSCALE_MATRIX[from]}:matrix=${ZSCALE_MATRIX[to]}`;
  }
  const flags = "lanczos+accurate_rnd+full_chroma_int";
  return `scale=${ref.width}:${ref.height}:flags=${flags}:in_color_matrix=${from}:out_color_matrix=${to}`;
}

/**
 * PSNR and SSIM of `distortedPath` against `referencePath` (see the header). `framesPath`: where
 * the psnr filter writes its per-frame log, read back into `framePsnrY`.
 */
export async function measureQuality(
  referencePath: string,
  distortedPath: string,
  signal?: AbortSignal,
  opts: { framesPath?: string } = {},
): Promise<QualityScore> {
  const ref = parseSourceInfo(await probeJson(referencePath, signal));
  const dist = parseSourceInfo(await probeJson(distortedPath, signal));
  const rates = ref.fps && dist.fps ? dist.fps / ref.fps : 1;
  const evenFrames = Math.abs(rates - 2) < 0.05 ? "select='not(mod(n,2))'," : "";
  const graph = [
    `[0:v]setpts=PTS-STARTPTS,format=yuv420p,split=2[r1][r2]`,
    `[1:v]${evenFrames}setpts=PTS-STARTPTS,${toReference(ref, matrixOf(dist), matrixOf(ref))},format=yuv420p,setsar=${ref.sarNum}/${ref.sarDen},split=2[d1][d2]`,
    `[d1][r1]psnr=shortest=1${opts.framesPath ? `:stats_file=${escapeFilterValue(opts.framesPath)}` : ""}[p]`,
    "[d2][r2]ssim=shortest=1[s]",
  ].join(";");
  const args = ["-noautorotate", "-i", referencePath, "-noautorotate", "-i", distortedPath];
  args.push("-filter_complex", graph, "-map", "[p]", "-f", "null", "-");
  args.push("-map", "[s]", "-f", "null", "-");
  const run = await runFfmpeg(args, { signal });
  const score = parseQualityLog(run.stderr);
  if (!opts.framesPath) return score;
  return { ...score, framePsnrY: parsePsnrFrames(await readFile(opts.framesPath, "utf8")) };
}
