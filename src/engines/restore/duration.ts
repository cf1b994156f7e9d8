/**
 * Real duration by packet scan. Container headers lie (MPEG-TS estimates, piped MKV has none,
 * a truncated MP4 keeps its original claim), so we copy every packet to the null muxer and read
 * where the timeline ended: ~0.1 s per 10 s of media, nothing decoded.
 */

import { parseSourceInfo } from "./analysis.js";
import { CORRUPT_MESSAGE, MediaError } from "./errors.js";
import { probeJson, runFfmpegForMedia } from "./run.js";

/** The last `out_time_us=` that `-progress` printed, in seconds; null when no packet passed. */
export function parseOutTimeSec(stderr: string): number | null {
  let last: number | null = null;
  for (const m of stderr.matchAll(/out_time_us=(-?\d+)/g)) last = Number(m[1]);
  return last !== null && last > 0 ? last / 1e6 : null;
}

/** Headers first (a file without video is refused before we scan it), then the packet scan. */
export async function measureDurationSec(inputPath: string, signal?: AbortSignal): Promise<number> {
  parseSourceInfo(await probeJson(inputPath, signal));
  return scanDurationSec(inputPath, signal);
}

/** The packet scan alone, for callers that have already read the headers. */
export async function scanDurationSec(inputPath: string, signal?: AbortSignal): Promise<number> {
  // Video and first audio: the output carries both, so the longer one is what we process.
  const args = ["-i", inputPath, "-map", "0:v:0", "-map", "0:a:0?", "-c", "copy"];
  args.push("-f", "null", "-", "-nostats", "-progress", "pipe:2");
  const run = await runFfmpegForMedia(args, { signal });
  const seconds = parseOutTimeSec(run.stderr);
  if (seconds === null) throw new MediaError("corrupt", CORRUPT_MESSAGE);
  return Math.round(seconds * 1000) / 1000;
}
