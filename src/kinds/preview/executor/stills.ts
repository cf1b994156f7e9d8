/**
 * A preview's pictures, from the middle of the excerpt: the frame as it is (`before`, at its own
 * size, once) and for each quality the restored frame and both side by side at the restored
 * size (the before scaled to it, as the restore scaled it). One ffmpeg run per quality decodes
 * each file once and writes them all.
 */
import { runFfmpeg } from "../../../engines/ffmpeg.js";

const picture = (label: string, file: string) => [
  "-map",
  label,
  "-frames:v",
  "1",
  "-q:v",
  "3",
  "-f",
  "image2",
  file,
];

/** Writes `after` and `pair` (and `before` when given) for one quality's clip. */
export async function makeStills(opts: {
  excerptPath: string;
  clipPath: string;
  atSec: number;
  width: number;
  height: number;
  after: string;
  pair: string;
  before?: string;
  signal: AbortSignal;
}): Promise<void> {
  const at = Math.max(0, opts.atSec).toFixed(3);
  const split = opts.before ? "split=2[b][bo]" : "null[b]";
  const graph = [
    `[0:v:0]setsar=1,format=yuvj420p,${split}`,
    `[b]scale=${opts.width}:${opts.height},setsar=1,format=yuvj420p[bs]`,
    "[1:v:0]setsar=1,format=yuvj420p,split=2[a][as]",
    "[bs][as]hstack=inputs=2[p]",
  ].join(";");
  await runFfmpeg(
    [
      "-loglevel",
      "error",
      "-y",
      "-ss",
      at,
      "-i",
      opts.excerptPath,
      "-ss",
      at,
      "-i",
      opts.clipPath,
      "-filter_complex",
      graph,
      ...picture("[a]", opts.after),
      ...picture("[p]", opts.pair),
      ...(opts.before ? picture("[bo]", opts.before) : []),
    ],
    { signal: opts.signal },
  );
}
