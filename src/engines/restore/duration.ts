/**
 * Real duration by packet scan. Container headers lie (MPEG-TS estimates, piped MKV has none,
 * a truncated MP4 keeps its original claim), so we copy every packet to the null muxer and read
 * where the timeline ended: ~0.1 s per 10 s of media, nothing decoded.
 *
 * The worker's measurement is also where an input is checked to be a usable video
 * (validate.ts): the headers, the scan and a short decode of a few windows beside it.
 */

import { parseSourceInfo } from "./analysis.js";
import { CORRUPT_MESSAGE, errorTail, MediaError } from "./errors.js";
import { probeJson, runFfmpegForMedia } from "./run.js";
import {
  checkDecodes,
  checkScan,
  headerSeconds,
  type PacketScan,
  refuseNonVideo,
  seeksToKeyframes,
} from "./validate.js";

/** The last `out_time_us=` that `-progress` printed, in seconds; null when no packet passed. */
export function parseOutTimeSec(stderr: string): number | null {
  let last: number | null = null;
  for (const m of stderr.matchAll(/out_time_us=(-?\d+)/g)) last = Number(m[1]);
  return last !== null && last > 0 ? last / 1e6 : null;
}

/** The last `frame=` that `-progress` printed (for a copy: packets of the first video stream). */
function parseFrames(stderr: string): number | null {
  let last: number | null = null;
  for (const m of stderr.matchAll(/^frame=(\d+)/gm)) last = Number(m[1]);
  return last;
}

const runForCheck = (args: string[], signal?: AbortSignal) => runFfmpegForMedia(args, { signal });

/** Settles `promise` without letting its rejection go unhandled while another step runs. */
const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

/**
 * The worker's measurement: the headers (a file without a picture, or a still image, is
 * refused before anything is scanned), then the packet scan with the decode check beside it,
 * and the length it found. Throws MediaError, worded for the customer, for a file that is not
 * a usable video (validate.ts).
 */
export async function measureDurationSec(inputPath: string, signal?: AbortSignal): Promise<number> {
  const probe = await probeJson(inputPath, signal);
  refuseNonVideo(probe);
  parseSourceInfo(probe);
  const claimed = headerSeconds(probe);
  const check = (lengthSec: number) =>
    checkDecodes(
      runForCheck,
      { path: inputPath, lengthSec, seekable: seeksToKeyframes(probe) },
      signal,
    );
  // The decode check places its windows by the header's length when there is one (beside the
  // scan); without one it waits for the scan's.
  const [scanned, decoded] = await Promise.all([
    settle(scanPackets(inputPath, signal)),
    settle(claimed === null ? Promise.resolve() : check(claimed)),
  ]);
  if (!scanned.ok) throw scanned.error;
  let unreadable: MediaError | undefined;
  if (!decoded.ok) {
    if (!(decoded.error instanceof MediaError)) throw decoded.error;
    unreadable = decoded.error;
  }
  // A file cut off is the clearer reason than the picture the decode check could not read.
  const seconds = checkScan(scanned.value, claimed, unreadable);
  if (claimed === null) await check(seconds);
  return Math.round(seconds * 1000) / 1000;
}

/** Every packet of the video and first audio stream copied to nothing, with -progress. */
async function scanPackets(inputPath: string, signal?: AbortSignal): Promise<PacketScan> {
  // Video and first audio: the output carries both, so the longer one is what we process.
  const args = ["-i", inputPath, "-map", "0:v:0", "-map", "0:a:0?", "-c", "copy"];
  args.push("-f", "null", "-", "-nostats", "-progress", "pipe:2");
  const run = await runFfmpegForMedia(args, { signal });
  return {
    seconds: parseOutTimeSec(run.stderr),
    videoPackets: parseFrames(run.stderr),
    stderr: run.stderr,
  };
}

/** The packet scan alone, for callers that have already read the headers. */
export async function scanDurationSec(inputPath: string, signal?: AbortSignal): Promise<number> {
  const scan = await scanPackets(inputPath, signal);
  if (scan.seconds === null)
    throw new MediaError("corrupt", CORRUPT_MESSAGE, errorTail(scan.stderr));
  return Math.round(scan.seconds * 1000) / 1000;
}
