/**
 * Studio Max's picture pass with the motion average (motion-average.ts) as two ffmpeg argument
 * lists with a JavaScript stage between them (pure). ffmpeg 5.1 has no motion-compensated
 * denoiser, so the chain is cut where the non-local means sits:
 *
 * - the front ffmpeg runs the filters before it (deinterlace, repairs, deflicker, the colour's
 *   own denoise), then splits the picture: one copy as it is, one through the plan's non-local
 *   means (the guide), stacked one above the other into one raw yuv420p frame on stdout, so the
 *   two never fall out of step;
 * - the JavaScript stage averages the noisy luma along the motion found on the guide and hands
 *   on that luma with the guide's colour (the colour is what the one-process chain delivers);
 * - the back ffmpeg reads those raw frames at the picture's rate, runs non-local means again at
 *   the plan's `final` × strength on the luma alone, then the rest of the chain and the encode.
 */
import {
  CLEAN_OUTPUT,
  colourTemporalFilter,
  denoiseFilter,
  FASTSTART_MP4,
  nlmeansFilter,
  threadArgs,
  transformsPathFor,
  videoCodecArgs,
  videoFilterParts,
} from "./chain.js";
import { uprightGeometry } from "./plan.js";
import type { NlMeans, RestorePlan } from "./types.js";

/** Both processes' arguments and what the stage between them needs to know. */
export interface AveragedPass {
  /** The front ffmpeg: input to raw stacked frames on stdout. */
  front: string[];
  /** The back ffmpeg: raw frames on stdin to the output file. */
  back: string[];
  /** Size of one picture (a stacked frame is twice as high). */
  width: number;
  height: number;
  threshold: number;
}

/** The plan's non-local means with a motion average, or null: the one-process pass. */
export function averagedDenoise(plan: RestorePlan): NlMeans | null {
  for (const d of plan.video.denoise) {
    if (d.filter === "nlmeans" && d.motionAverage) return d;
  }
  return null;
}

const RAW = ["-f", "rawvideo", "-pix_fmt", "yuv420p"];

/**
 * The two processes of the picture pass for a plan with a motion average (`averagedDenoise`);
 * `buildVideoPassArgs`'s counterpart: the same filters, the same x264 settings, no sound.
 * `inputArgs` go before the front's `-i` (a segment's seek); `outputArgs` before the output
 * path (its trim, on the back's timeline, which counts from the first frame the front wrote).
 */
export function buildAveragedPassArgs(
  plan: RestorePlan,
  inputPath: string,
  outputPath: string,
  opts: { faststart: boolean; inputArgs?: string[]; outputArgs?: string[] },
): AveragedPass {
  const nl = averagedDenoise(plan);
  const fps = plan.video.output.fps;
  if (!nl?.motionAverage || !fps) throw new Error("the plan has no motion average");
  const { before, denoise, after } = videoFilterParts(plan, transformsPathFor(outputPath));
  const front = [...before];
  // What denoises before the non-local means (hqdn3d's colour on coarse grain) stays before it;
  // anything after it would follow the second one.
  const at = denoise.indexOf(nl);
  for (const d of denoise.slice(0, at)) front.push(denoiseFilter(d));
  const later = denoise.slice(at + 1).map(denoiseFilter);
  const colour = colourTemporalFilter(nl);
  if (colour) front.push(colour);
  const stack = `split[mavg_n][mavg_c];[mavg_c]${nlmeansFilter(nl)}[mavg_g];[mavg_n][mavg_g]vstack`;
  const frontArgs = [...(opts.inputArgs ?? []), "-i", inputPath];
  frontArgs.push("-map", `0:${plan.source.videoStreamIndex}`, "-vf", [...front, stack].join(","));
  frontArgs.push("-an", "-sn", "-dn", ...threadArgs(plan), ...RAW, "pipe:1");

  const up = uprightGeometry(plan.source);
  // Raw frames carry no aspect: given back as the front had it.
  const { sarNum, sarDen, rotationCw } = plan.source;
  const quarter = rotationCw === 90 || rotationCw === 270;
  const sar = quarter ? `${sarDen}/${sarNum}` : `${sarNum}/${sarDen}`;
  const back = ["-y", ...RAW, "-s", `${up.width}x${up.height}`, "-framerate", String(fps)];
  back.push("-i", "pipe:0");
  // Raw frames carry no range or matrix either. After the front's format=yuv420p the picture is
  // limited range; the matrix is the source's.
  const matrix = plan.source.colorMatrix;
  const tags = matrix ? `:colorspace=${matrix === "bt709" ? "bt709" : "smpte170m"}` : "";
  const { final } = nl.motionAverage;
  // The planes taken apart as they are (format=gray would convert: swscale takes grey for full
  // range and stretched the luma, planks grain-7 36.2 → 28.2 dB); the luma alone through the
  // second non-local means, the colour the guide's, as delivered.
  // ffmpeg's nlmeans takes no strength under 1: below that (fine grain, σ < 2.5) it is left out.
  const again = nl.strength * final >= 1;
  const luma = again ? `[mavg_y0]${nlmeansFilter(nl, final)}[mavg_y];` : "[mavg_y0]null[mavg_y];";
  const second = `extractplanes=y+u+v[mavg_y0][mavg_u][mavg_v];${luma}[mavg_y][mavg_u][mavg_v]mergeplanes=0x001020:yuv420p`;
  const setparams = `setparams=range=tv${tags}`;
  back.push("-vf", [`setsar=${sar}`, setparams, second, ...later, ...after].join(","));
  back.push(...videoCodecArgs(plan), "-an", ...CLEAN_OUTPUT, ...threadArgs(plan));
  back.push(...(opts.outputArgs ?? []));
  back.push(...(opts.faststart ? FASTSTART_MP4 : ["-f", "mp4"]), outputPath);
  return {
    front: frontArgs,
    back,
    width: up.width,
    height: up.height,
    threshold: nl.motionAverage.threshold,
  };
}
