/**
 * The video half of the probe: interlacing (idet), and for the enhanced qualities levels
 * (signalstats) and camera shake (vidstabdetect), all in one ffmpeg run over a few excerpts.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runFfprobe } from "../ffmpeg.js";
import {
  parseSignalstats,
  parseVidstabMotions,
  shakeRatioOfChunks,
  sumIdetSummaries,
} from "./analysis.js";
import { escapeFilterValue } from "./chain.js";
import { yuv420Noise } from "./noise.js";
import { runFfmpegForMedia } from "./run.js";
import { planReads } from "./sampling.js";
import type { Measurements, Sample, SourceInfo } from "./types.js";

/** Height the shake and levels analysis runs at: enough detail, a fraction of the cost. */
const ANALYSIS_HEIGHT = 360;

const sec = (x: number): string => String(Math.round(x * 1000) / 1000);

/**
 * Where a seek to each excerpt lands (the keyframe at or before it), in file seconds; one
 * ffprobe reading one packet per excerpt. Null when ffprobe cannot tell.
 */
export async function seekLandings(
  inputPath: string,
  source: SourceInfo,
  samples: Sample[],
  signal?: AbortSignal,
): Promise<number[] | null> {
  const t0 = source.startTimeSec ?? 0;
  const intervals = samples.map((s) => `${sec(t0 + s.startSec)}%+#1`).join(",");
  const args = ["-v", "error", "-select_streams", String(source.videoStreamIndex)];
  args.push("-read_intervals", intervals, "-show_entries", "packet=pts_time", "-of", "csv=p=0");
  const run = await runFfprobe([...args, inputPath], { signal }).catch(() => null);
  if (signal?.aborted) throw signal.reason;
  if (!run) return null;
  const times = run.stdout
    .split("\n")
    .map((l) => Number.parseFloat(l))
    .filter(Number.isFinite);
  return run.code === 0 && times.length === samples.length ? times.map((t) => t - t0) : null;
}

interface Inputs {
  args: string[];
  /** One chain head per excerpt, each ready for `,filter`. */
  heads: string[];
  /** Filtergraph text that feeds the heads (a split), or "". */
  prelude: string;
}

/**
 * One input per excerpt (`-ss` before `-i`): nothing outside the excerpts is decoded. Without
 * accurate seeking an excerpt that starts on a keyframe keeps that keyframe (the 1 ms nudge
 * keeps rounding from landing on the keyframe before); one that does not, starts exactly.
 */
function seekingInputs(
  path: string,
  source: SourceInfo,
  samples: Sample[],
  planned: Sample[],
): Inputs {
  const args: string[] = [];
  const heads = samples.map((s, i) => {
    const moved = s.startSec !== planned[i]?.startSec;
    if (moved) args.push("-noaccurate_seek", "-ss", sec(s.startSec + 0.001));
    else if (s.startSec > 0) args.push("-ss", sec(s.startSec));
    // One decoder thread per excerpt: a frame-threaded decoder's start-up and its frames of
    // delay cost more than they save on half a second of video (480p probe: 0.60 → 0.40 s wall,
    // 11 % less CPU), and this run is on the critical path before the encode.
    args.push("-threads", "1", "-t", sec(s.seconds), "-noautorotate", "-i", path);
    return `[${i}:${source.videoStreamIndex}]null`;
  });
  return { args, heads, prelude: "" };
}

/** One input read straight through and cut into the excerpts (when GOPs are long). */
function throughInputs(path: string, source: SourceInfo, samples: Sample[]): Inputs {
  const last = samples.at(-1) as Sample;
  const args = ["-t", sec(last.startSec + last.seconds), "-noautorotate", "-i", path];
  const outs = samples.map((_, i) => `[t${i}]`).join("");
  const prelude = `[0:${source.videoStreamIndex}]split=${samples.length}${outs};`;
  // trim ends its branch after the excerpt, so concat moves on without buffering frames.
  const heads = samples.map(
    (s, i) => `[t${i}]trim=start=${sec(s.startSec)}:end=${sec(s.startSec + s.seconds)}`,
  );
  return { args, heads, prelude };
}

/**
 * idet per excerpt (a fresh one each, so its frame history never carries one excerpt's
 * verdict into the next), then the excerpts back to back. `frames` > 0 trims every excerpt to
 * that many frames, so the shake analysis can cut them apart again.
 */
function frontGraph(inputs: Inputs, frames: number): string {
  const trim = frames > 0 ? `,trim=end_frame=${frames}` : "";
  const idet = "idet=intl_thres=1.2";
  if (inputs.heads.length === 1) return `${inputs.prelude}${inputs.heads[0]},${idet}`;
  const parts = inputs.heads.map((h, i) => `${h}${trim},${idet},setpts=PTS-STARTPTS[s${i}]`);
  const joined = inputs.heads.map((_, i) => `[s${i}]`).join("");
  return `${inputs.prelude}${parts.join(";")};${joined}concat=n=${inputs.heads.length}:v=1:a=0`;
}

/**
 * Every how many frames the noise estimate reads one: a small prime, so the frames fall on every
 * position of the stream's GOP whatever the excerpts' length. The grain an MPEG-2 capture keeps
 * differs by frame type (σ 2.0 in I, 3.8 in P, 5.0 in B frames): a step equal to the excerpt
 * length read only keyframes, and Standard measured a quarter of the noise Enhanced did.
 */
const NOISE_FRAME_STEP = 5;

/**
 * The noise branch: the top field of a few frames at full resolution (one field, so combing
 * never reads as noise), cropped to an even size for yuv420p.
 */
function noiseFrames(source: SourceInfo): { filter: string; width: number; height: number } {
  const width = source.width - (source.width % 2);
  const field = Math.floor(source.height / 2);
  const height = field - (field % 2);
  return {
    filter: `select='not(mod(n,${NOISE_FRAME_STEP}))',field=top,crop=${width}:${height}:0:0`,
    width,
    height,
  };
}

export interface VideoAnalysisOptions {
  samples: Sample[];
  /** Measure levels (signalstats): only the enhanced qualities act on them. */
  levels: boolean;
  /** Measure camera shake (vidstabdetect): only where we would stabilise. */
  shake: boolean;
  signal?: AbortSignal;
}

/** idet on full-resolution frames; signalstats and vidstabdetect on a small, denoised copy. */
export async function analyseVideo(
  inputPath: string,
  source: SourceInfo,
  dir: string,
  opts: VideoAnalysisOptions,
): Promise<Pick<Measurements, "interlace" | "shakeRatio" | "levels" | "noise" | "samples">> {
  const { samples } = opts;
  const statsPath = join(dir, "signalstats.txt");
  const trfPath = join(dir, "shake.trf");
  const fps = source.fps ?? 25;
  const frames = opts.shake ? Math.max(1, Math.floor((samples[0]?.seconds ?? 0) * fps)) : 0;
  const landings =
    samples.length > 1 ? await seekLandings(inputPath, source, samples, opts.signal) : null;
  const reads = planReads(samples, landings);
  const inputs =
    reads.mode === "seek"
      ? seekingInputs(inputPath, source, reads.samples, samples)
      : throughInputs(inputPath, source, samples);
  // One field per frame: combing would read as vertical jitter. Progressive input just loses
  // every other line, which motion search does not mind.
  const fieldHeight = Math.floor(source.height / 2);
  const height = Math.min(ANALYSIS_HEIGHT, fieldHeight - (fieldHeight % 2));
  // Levels on a quarter-size, denoised copy: grain must not pass for black or white.
  const stats = `scale=trunc(iw/8)*2:trunc(ih/8)*2:flags=area,hqdn3d=4:3:6:4.5,signalstats,metadata=mode=print:file=${escapeFilterValue(statsPath)}`;
  const motion = `field=top,scale=-2:${height},hqdn3d=4:3:6:4.5,vidstabdetect=result=${escapeFilterValue(trfPath)}:shakiness=5:accuracy=9`;
  // idet's default intl_thres (1.04) read progressive testsrc2 as 82% TFF; at 1.2 it read it
  // progressive while interlaced testsrc2/mandelbrot/gradients/life all still read ≥98% TFF.
  const front = frontGraph(inputs, frames);
  const noise = noiseFrames(source);
  const noisePath = join(dir, "noise.yuv");
  const branches = [
    opts.levels ? stats : null,
    opts.shake ? motion : null,
    `${noise.filter},format=yuv420p`,
  ].filter((b): b is string => b !== null);
  const labels = branches.map((_, i) => `[b${i}]`).join("");
  let graph = `${front},format=yuv420p,split=${branches.length}${labels}`;
  branches.forEach((b, i) => {
    graph += `;[b${i}]${b}[o${i}]`;
  });
  // Passthrough: the noise branch's selected frames are written once each, not repeated to a
  // constant rate (-vsync is global, so the 2018 fallback ffmpeg understands it too).
  const args = [...inputs.args, "-filter_complex", graph, "-vsync", "0"];
  branches.forEach((_, i) => {
    const last = i === branches.length - 1;
    args.push(
      "-map",
      `[o${i}]`,
      ...(last ? ["-f", "rawvideo", "-y", noisePath] : ["-f", "null", "-"]),
    );
  });
  const run = await runFfmpegForMedia(args, { signal: opts.signal });
  const levels = opts.levels
    ? parseSignalstats(await readFile(statsPath, "utf8").catch(() => ""))
    : null;
  let shake: number | null = null;
  if (opts.shake) {
    const trf = await readFile(trfPath, "utf8").catch(() => "");
    const motions = parseVidstabMotions(trf);
    shake = shakeRatioOfChunks(motions, frames, height, Math.max(2, Math.round(fps / 4)));
  }
  const raw = await readFile(noisePath).catch(() => null);
  const noiseLevel = raw ? yuv420Noise(raw, noise.width, noise.height) : null;
  const interlace = sumIdetSummaries(run.stderr);
  return { interlace, shakeRatio: shake, levels, noise: noiseLevel, samples: reads.samples };
}
