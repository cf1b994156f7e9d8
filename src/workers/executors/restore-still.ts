/**
 * The before/after still of a done restore: one frame of the input beside the same moment of
 * the result, each half 240 px wide (480 px in all), as a small JPEG the owner's console shows.
 * Made on the worker, which has both files at hand, right after the restore.
 */
import { runFfmpeg } from "../../engines/ffmpeg.js";

/** Width of each half; the still is twice as wide. */
const HALF_WIDTH = 240;

/**
 * Writes the still to `stillPath`. Both halves are scaled to the result's shape (the result has
 * square pixels; an anamorphic input is shown as it plays), from the middle of the video, where
 * a fade-in or a title card is least likely.
 */
export async function makeBeforeAfterStill(opts: {
  inputPath: string;
  outputPath: string;
  stillPath: string;
  durationSec: number;
  width: number;
  height: number;
  signal?: AbortSignal;
}): Promise<void> {
  const at = Math.max(0, opts.durationSec / 2).toFixed(3);
  const aspect = opts.width > 0 && opts.height > 0 ? opts.height / opts.width : 3 / 4;
  const h = Math.max(2, Math.round((HALF_WIDTH * aspect) / 2) * 2);
  const half = `scale=${HALF_WIDTH}:${h},setsar=1,format=yuvj420p`;
  await runFfmpeg(
    [
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
      `[0:v:0]${half}[a];[1:v:0]${half}[b];[a][b]hstack=inputs=2[v]`,
      "-map",
      "[v]",
      "-frames:v",
      "1",
      "-q:v",
      "5",
      "-f",
      "image2",
      opts.stillPath,
    ],
    { signal: opts.signal },
  );
}
