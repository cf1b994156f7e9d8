/**
 * Whether an uploaded file is a video a restore can use, decided before any money is kept:
 * the worker runs these checks inside its length measurement (`measureDurationSec`), so a file
 * refused here fails the job and refunds it whole. What only the worker can tell:
 *
 * - no picture at all (a sound file, with or without cover art);
 * - a still picture (an image container, or a video stream of a single frame): restoring it
 *   would make a one-frame, 0.04 s MP4;
 * - a video shorter than MIN_VIDEO_SEC;
 * - a video whose frames come faster than MAX_FRAME_RATE, on average over the whole file;
 * - a file whose media stops well short of the length its header gives, with the demuxer
 *   reporting damage (an upload cut off);
 * - a picture that does not decode: a few short windows (start, middle, end) are decoded and a
 *   window where most packets give no frame condemns the file (garbage after a valid header).
 *
 * Every refusal is a MediaError whose message is a sentence for the customer; what ffmpeg
 * printed is its `detail`, for the log.
 */
import { type JsonRecord, recordOf, recordsOf } from "../../domain/records.js";
import { FfmpegError } from "../ffmpeg.js";
import {
  AUDIO_ONLY_MESSAGE,
  CORRUPT_MESSAGE,
  cutOffMessage,
  errorTail,
  frameRateMessage,
  MediaError,
  NO_VIDEO_MESSAGE,
  STILL_IMAGE_MESSAGE,
  tooShortMessage,
  UNDECODABLE_MESSAGE,
} from "./errors.js";

/**
 * The shortest video this engine restores, in seconds (the restore kind refuses a shorter
 * declared length before anything is charged; its executor's test holds the two equal).
 */
export const MIN_VIDEO_SEC = 1;

/**
 * The most frames a second a restore takes. A restore and a preview are priced and capped by
 * seconds, while their work is per frame: without a ceiling, a minute of 25p footage packed
 * into 5 s at 300 fps came back from the free preview whole (found in review, 2026-12-04).
 * 60 covers every tape and broadcast rate (50i / 60i stored as fields are 50–59.94 packets a
 * second) and 50p / 60p; faster footage is refused with a sentence saying how to convert it.
 */
export const MAX_FRAME_RATE = 60;

/** Timestamps jitter (variable-rate phone footage averages a little over its nominal 60). */
const FRAME_RATE_SLACK = 1.03;

type Json = JsonRecord;

/** What the packet scan (`-c copy -f null`) saw. */
export interface PacketScan {
  /** Where the timeline ended; null when no packet passed. */
  seconds: number | null;
  /** Video packets copied (`frame=` of -progress); null when it printed none. */
  videoPackets: number | null;
  stderr: string;
}

/** ffmpeg's demuxers of single pictures: `image2` and the `*_pipe` family (png_pipe …). */
const isImageContainer = (name: string) => name === "image2" || /^[a-z0-9]+_pipe$/.test(name);

/** What a demuxer prints when the file's data ends early or is broken in the middle. */
const DAMAGE_PATTERNS = [
  /partial file/i,
  /exceeds containing master element/i,
  /truncat/i,
  /corrupt input packet/i,
  /moov atom not found/i,
];

/** A file ends this far short of its header's length, with damage reported: cut off. */
const CUT_OFF_SHARE = 0.9;

const streamsOf = (probe: Json) => recordsOf(probe.streams);

/**
 * From the headers alone: refuses a file without a picture (saying when it is sound only) and
 * a still image's container. Cover art in a sound file is not a picture to restore.
 */
export function refuseNonVideo(probe: Json): void {
  const streams = streamsOf(probe);
  const pictures = streams.filter(
    (s) => s.codec_type === "video" && recordOf(s.disposition).attached_pic !== 1,
  );
  if (pictures.length === 0) {
    const sound = streams.some((s) => s.codec_type === "audio");
    throw new MediaError("no_video", sound ? AUDIO_ONLY_MESSAGE : NO_VIDEO_MESSAGE);
  }
  const format = recordOf(probe.format);
  const names = typeof format.format_name === "string" ? format.format_name.split(",") : [];
  if (names.length > 0 && names.every(isImageContainer)) {
    throw new MediaError("still_image", STILL_IMAGE_MESSAGE, `container ${format.format_name}`);
  }
}

/** The header's length in seconds, when it gives one. */
export function headerSeconds(probe: Json): number | null {
  const d = Number(recordOf(probe.format).duration);
  return Number.isFinite(d) && d > 0 ? d : null;
}

/**
 * From the packet scan, in order: nothing readable, a file cut off short of its header's
 * length, then the decode check's failure when there was one, a single picture, a video
 * shorter than a restore takes, or frames faster than it takes. Returns the length in seconds.
 */
export function checkScan(
  scan: PacketScan,
  claimedSec: number | null,
  decodeFailure?: MediaError,
): number {
  if (scan.seconds === null) {
    throw new MediaError("corrupt", CORRUPT_MESSAGE, errorTail(scan.stderr));
  }
  const damaged = DAMAGE_PATTERNS.some((re) => re.test(scan.stderr));
  if (damaged && claimedSec !== null && scan.seconds < CUT_OFF_SHARE * claimedSec) {
    throw new MediaError(
      "corrupt",
      cutOffMessage(scan.seconds, claimedSec),
      errorTail(scan.stderr),
    );
  }
  // A picture that does not decode can also leave the copy with a single packet: it is damaged,
  // not a still.
  if (decodeFailure) throw decodeFailure;
  if (scan.videoPackets !== null && scan.videoPackets <= 1) {
    throw new MediaError("still_image", STILL_IMAGE_MESSAGE, "one video packet");
  }
  if (scan.seconds < MIN_VIDEO_SEC) {
    throw new MediaError("too_short", tooShortMessage(scan.seconds, MIN_VIDEO_SEC));
  }
  // Packets of the first video stream over the timeline: frames a second (fields, where each
  // field is coded apart). Over a longer sound track it reads low, which only lets more in.
  const rate = scan.videoPackets === null ? null : scan.videoPackets / scan.seconds;
  if (rate !== null && rate > MAX_FRAME_RATE * FRAME_RATE_SLACK) {
    throw new MediaError(
      "unsupported",
      frameRateMessage(rate, MAX_FRAME_RATE),
      `${scan.videoPackets} video packets in ${scan.seconds} s`,
    );
  }
  return scan.seconds;
}

/** Seconds decoded per window. */
export const DECODE_WINDOW_SEC = 1;

/**
 * Containers whose index makes a seek land on a keyframe. Elsewhere (MPEG-TS, program
 * streams, raw streams) a seek lands on any packet and the picture cannot decode until the
 * next keyframe, which would look like damage: there only the start is decoded.
 */
const INDEXED_CONTAINERS = new Set(["mov", "mp4", "matroska", "webm", "avi"]);

/** Whether the decode check may look past the start of a file with these format names. */
export function seeksToKeyframes(probe: Json): boolean {
  const format = recordOf(probe.format);
  const names = typeof format.format_name === "string" ? format.format_name.split(",") : [];
  return names.some((n) => INDEXED_CONTAINERS.has(n));
}

/**
 * Where the decode check looks: the start, the middle and the end of a file of `lengthSec`
 * whose container seeks to keyframes; a short file, or one that cannot seek to keyframes, only
 * from the start.
 */
export function decodeWindows(lengthSec: number, seekable = true): number[] {
  if (!seekable || lengthSec <= 3 * DECODE_WINDOW_SEC) return [0];
  const last = Math.max(0, lengthSec - DECODE_WINDOW_SEC - 0.5);
  const middle = Math.max(0, lengthSec / 2 - DECODE_WINDOW_SEC / 2);
  return [0, Math.round(middle * 1000) / 1000, Math.round(last * 1000) / 1000];
}

/**
 * ffmpeg arguments decoding each window's picture to nothing (`-noaccurate_seek`: a window
 * starts on the keyframe at or before its time, so no lead is decoded); `-v verbose` for the
 * per-input packet and frame counts at the end.
 */
export function decodeCheckArgs(inputPath: string, starts: readonly number[], lengthSec: number) {
  // One window: the whole of a short file, else the first three windows' worth.
  const span =
    starts.length === 1
      ? Math.min(Math.max(lengthSec, 0) + 1, 3 * DECODE_WINDOW_SEC)
      : DECODE_WINDOW_SEC;
  const args = ["-nostats", "-v", "verbose"];
  for (const start of starts) {
    if (start > 0) args.push("-noaccurate_seek", "-ss", String(start));
    args.push("-t", String(span), "-i", inputPath);
  }
  starts.forEach((_, i) => {
    args.push("-map", `${i}:v:0`, "-f", "null", "-");
  });
  return args;
}

interface WindowCount {
  packets: number;
  frames: number;
}

/** The per-input video packet and frame counts ffmpeg prints at the end (`-v verbose`). */
export function parseDecodeCounts(stderr: string): Map<number, WindowCount> {
  const counts = new Map<number, WindowCount>();
  const re = /Input stream #(\d+):\d+ \(video\): (\d+) packets read[^;]*; (\d+) frames decoded/g;
  for (const m of stderr.matchAll(re)) {
    counts.set(Number(m[1]), { packets: Number(m[2]), frames: Number(m[3]) });
  }
  return counts;
}

/** A window needs this many packets before its share of decoded frames means anything. */
const MIN_PACKETS_TO_JUDGE = 4;
/** A window decoding fewer frames than this share of its packets is damaged. */
const MIN_DECODED_SHARE = 0.5;

/**
 * Whether the windows' counts show a picture that does not decode: a judged window with fewer
 * frames than half its packets, or not one frame from packets anywhere. No counts (an ffmpeg
 * that prints none): no verdict.
 */
export function undecodable(counts: Map<number, WindowCount>): boolean {
  if (counts.size === 0) return false;
  let packets = 0;
  let frames = 0;
  for (const c of counts.values()) {
    packets += c.packets;
    frames += c.frames;
    if (c.packets >= MIN_PACKETS_TO_JUDGE && c.frames < MIN_DECODED_SHARE * c.packets) return true;
  }
  return packets > 0 && frames === 0;
}

/** Runs ffmpeg with the given arguments (the engine's runner, which maps input faults). */
type Ffmpeg = (args: string[], signal?: AbortSignal) => Promise<{ stderr: string }>;

/**
 * Decodes the windows and refuses a picture that does not decode. A run that fails for a
 * reason that is not the file's (FfmpegError) gives no verdict: the restore will say more.
 */
export async function checkDecodes(
  run: Ffmpeg,
  input: { path: string; lengthSec: number; seekable: boolean },
  signal?: AbortSignal,
): Promise<void> {
  const { path: inputPath, lengthSec } = input;
  const starts = decodeWindows(lengthSec, input.seekable);
  let stderr: string;
  try {
    ({ stderr } = await run(decodeCheckArgs(inputPath, starts, lengthSec), signal));
  } catch (err) {
    if (err instanceof MediaError) {
      throw new MediaError("corrupt", UNDECODABLE_MESSAGE, err.detail ?? err.message);
    }
    if (err instanceof FfmpegError) return;
    throw err;
  }
  const counts = parseDecodeCounts(stderr);
  if (undecodable(counts)) {
    const read = [...counts].map(([i, c]) => `window ${i}: ${c.frames}/${c.packets}`);
    const said = stderr.split("\n").find((l) => /error/i.test(l)) ?? "";
    const detail = `frames decoded/packets read at ${starts.join(", ")} s: ${read.join("; ")}. ${said}`;
    throw new MediaError("corrupt", UNDECODABLE_MESSAGE, detail.trim());
  }
}
