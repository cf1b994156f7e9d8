/**
 * The before/after pictures of a done restore, made on the worker (which has both files at
 * hand) right after the restore, from one moment in the middle of the video, where a fade-in or
 * a title card is least likely:
 *
 * - the still: the input's frame beside the result's, each half 240 px wide (480 px in all), a
 *   small JPEG for the console's job list;
 * - optionally the two frames at the result's own size (the input's scaled to it, as the
 *   restore scaled it), high-quality JPEGs for the console's full-size comparison — a restore
 *   is judged on its detail, which a thumbnail cannot show.
 *
 * One ffmpeg run decodes each file once and writes all of them.
 */
import { runFfmpeg } from "../ffmpeg.js";

/** Width of each half of the still; the still is twice as wide. */
const HALF_WIDTH = 240;

/** Where the full-size frames go. */
export interface FramePaths {
  before: string;
  after: string;
}

/**
 * Writes the still to `stillPath` and, with `frames`, the full-size frames. Every picture is
 * scaled to the result's shape (the result has square pixels; an anamorphic input is shown as
 * it plays); the full-size "before" is the input at the result's `width`×`height`.
 */
export async function makeBeforeAfterStill(opts: {
  inputPath: string;
  outputPath: string;
  stillPath: string;
  frames?: FramePaths;
  durationSec: number;
  width: number;
  height: number;
  signal?: AbortSignal;
}): Promise<void> {
  const at = Math.max(0, opts.durationSec / 2).toFixed(3);
  const sized = opts.width > 0 && opts.height > 0;
  const aspect = sized ? opts.height / opts.width : 3 / 4;
  const h = Math.max(2, Math.round((HALF_WIDTH * aspect) / 2) * 2);
  const half = `scale=${HALF_WIDTH}:${h},setsar=1,format=yuvj420p`;
  const full = opts.frames && sized;
  const graph = full
    ? [
        `[0:v:0]scale=${opts.width}:${opts.height},setsar=1,split=2[b0][b1]`,
        "[1:v:0]setsar=1,split=2[a0][a1]",
        `[b0]${half}[bs]`,
        `[a0]${half}[as]`,
        "[bs][as]hstack=inputs=2[v]",
        "[b1]format=yuvj420p[bf]",
        "[a1]format=yuvj420p[af]",
      ].join(";")
    : `[0:v:0]${half}[a];[1:v:0]${half}[b];[a][b]hstack=inputs=2[v]`;
  const picture = (label: string, quality: string, file: string) => [
    "-map",
    label,
    "-frames:v",
    "1",
    "-q:v",
    quality,
    "-f",
    "image2",
    file,
  ];
  const args = [
    "-loglevel",
    "error",
    "-y",
    "-ss",
    at,
    "-i",
    opts.inputPath,
    "-ss",
    at,
    "-i",
    opts.outputPath,
    "-filter_complex",
    graph,
    ...picture("[v]", "5", opts.stillPath),
  ];
  // Near-lossless (2 on ffmpeg's 2–31 scale): the comparison is about fine detail.
  if (full && opts.frames) {
    args.push(
      ...picture("[bf]", "2", opts.frames.before),
      ...picture("[af]", "2", opts.frames.after),
    );
  }
  await runFfmpeg(args, { signal: opts.signal });
}
