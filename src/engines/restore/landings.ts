/**
 * Where a seek to each excerpt lands (the keyframe at or before it): asked of ffprobe before
 * an analysis, or read off the first frames of an analysis that read from the keyframes.
 */
import { readFile } from "node:fs/promises";
import { runFfprobe } from "../ffmpeg.js";
import { escapeFilterValue } from "./chain.js";
import { secondsText } from "./sampling.js";
import type { Sample, SourceInfo } from "./types.js";

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
  const intervals = samples.map((s) => `${secondsText(t0 + s.startSec)}%+#1`).join(",");
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

/**
 * Each frame's time, printed to `file`. metadata prints only frames that carry an entry, and a
 * decoded frame carries none: it gets one first.
 */
export const printTimes = (file: string) =>
  `metadata=mode=add:key=kinora.at:value=1,metadata=mode=print:key=kinora.at:file=${escapeFilterValue(file)}`;

/**
 * Where each excerpt's first frame was, in file seconds, from the `metadata=mode=print` files a
 * run from the keyframes wrote (its first line's `pts_time`); null for one that gave no frame.
 */
export async function readLandings(
  paths: string[],
  source: SourceInfo,
): Promise<Array<number | null>> {
  const t0 = source.startTimeSec ?? 0;
  const texts = await Promise.all(paths.map((f) => readFile(f, "utf8").catch(() => "")));
  return texts.map((text) => {
    const first = /pts_time:(\S+)/.exec(text)?.[1];
    const at = first === undefined ? Number.NaN : Number.parseFloat(first);
    return Number.isFinite(at) ? at - t0 : null;
  });
}
