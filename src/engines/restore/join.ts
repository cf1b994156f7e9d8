/**
 * The end of a segmented restore: the sound restored once over the whole file (one continuous
 * stream: no joint can click, drift or repeat a sample), and the segments' pictures joined by
 * copying their packets (the concat demuxer; every segment starts on an IDR frame with a
 * closed GOP, so nothing is re-encoded), muxed with that sound into the delivered MP4.
 *
 * Each segment is placed at its planned start on the source's timeline (`duration` lines in the
 * concat list), not after the previous file's last frame, so a variable frame rate or a
 * rounded frame length cannot accumulate into drift over a long tape; the picture starts where
 * the one-piece pass starts it (`-itsoffset`), and `-copyts` keeps the sound where its pass put
 * it, as `buildMuxArgs` does for the two-pass restore.
 */

import { rename, rm, writeFile } from "node:fs/promises";
import { at } from "../../domain/checked-index.js";
import { FfmpegError } from "../ffmpeg.js";
import { buildAudioPassArgs } from "./chain.js";
import { runFfmpegForMedia } from "./run.js";
import {
  benchCpuSec,
  checkSegmentLength,
  type PictureFile,
  probePictureFile,
} from "./segment-run.js";
import type { CutPlan } from "./segments.js";
import type { RestorePlan } from "./types.js";

/** The concat demuxer's list: each file quoted, each but the last with its planned span. */
export function buildConcatList(entries: Array<{ path: string; durationSec?: number }>): string {
  const quote = (p: string) => `'${p.replace(/'/g, "'\\''")}'`;
  const lines = ["ffconcat version 1.0"];
  for (const e of entries) {
    lines.push(`file ${quote(e.path)}`);
    if (e.durationSec !== undefined) lines.push(`duration ${e.durationSec.toFixed(6)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** No subtitles or data, no metadata or chapters, index first: as the one-piece delivery. */
const DELIVERY = ["-sn", "-dn", "-map_metadata", "-1", "-map_chapters", "-1"];
const FASTSTART_MP4 = ["-movflags", "+faststart", "-f", "mp4"];

/**
 * Joins the segments listed in `listPath` (their packets copied) and the restored sound at
 * `audioPath` (null: picture only) into `outputPath`; the picture starts at `videoStartSec`.
 */
export function buildJoinArgs(
  listPath: string,
  audioPath: string | null,
  outputPath: string,
  videoStartSec: number,
): string[] {
  const args = ["-y", "-copyts", "-f", "concat", "-safe", "0"];
  args.push("-itsoffset", videoStartSec.toFixed(6), "-i", listPath);
  if (audioPath) args.push("-i", audioPath);
  args.push("-map", "0:v:0");
  // `?`: a track whose header promised sound but held no packet leaves the sound's pass
  // without a stream; the delivered file is then picture only, as in one piece.
  if (audioPath) args.push("-map", "1:a:0?");
  args.push("-c", "copy", ...DELIVERY, ...FASTSTART_MP4, outputPath);
  return args;
}

/**
 * The sound of the whole file restored once (`buildAudioPassArgs`: high-pass, hum notches,
 * denoise, loudness to the whole track's measurement) to an MP4 at `outputPath`, its
 * timestamps counted from the input's start. Runs beside the segments, on any worker.
 */
export async function restoreSound(
  plan: RestorePlan,
  input: string,
  outputPath: string,
  opts: { signal?: AbortSignal } = {},
): Promise<{ cpuSec: number; elapsedMs: number }> {
  const started = Date.now();
  const partial = `${outputPath}.partial.mp4`;
  try {
    const args = ["-benchmark", ...buildAudioPassArgs(plan, input, partial)];
    const run = await runFfmpegForMedia(args, { signal: opts.signal });
    await rename(partial, outputPath);
    return { cpuSec: benchCpuSec(run.stderr), elapsedMs: Date.now() - started };
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}

export interface JoinInput {
  plan: RestorePlan;
  cut: CutPlan;
  /** The segments' files, in the cut plan's order. */
  segmentPaths: string[];
  /** `restoreSound`'s file; null when the plan has no sound. */
  audioPath: string | null;
  outputPath: string;
  signal?: AbortSignal;
}

export interface JoinResult {
  /** Frames and length of the delivered picture. */
  frames: number;
  durationSec: number;
  width: number;
  height: number;
  elapsedMs: number;
}

/**
 * Checks every segment's file (its length against the plan, and that all share one picture
 * format, which copying packets into one stream needs), then joins them and the sound into
 * `outputPath` (written under a temporary name, renamed when done). Throws FfmpegError when a
 * segment does not fit: that segment must be restored again.
 */
export async function joinSegments(input: JoinInput): Promise<JoinResult> {
  const started = Date.now();
  const { cut, segmentPaths, signal } = input;
  if (segmentPaths.length !== cut.segments.length) {
    throw new Error(`${cut.segments.length} segments planned, ${segmentPaths.length} given`);
  }
  await checkSegmentFiles(input);
  const listPath = `${input.outputPath}.concat.txt`;
  const partial = `${input.outputPath}.partial.mp4`;
  const entries = cut.segments.map((s, i) => ({
    path: at(segmentPaths, i),
    durationSec: s.last ? undefined : s.endSec - s.startSec,
  }));
  try {
    await writeFile(listPath, buildConcatList(entries));
    const args = buildJoinArgs(listPath, input.audioPath, partial, cut.startSec);
    await runFfmpegForMedia(args, { signal }, "muxer");
    const { frames, durationSec, width, height } = await probePictureFile(partial, signal);
    await rename(partial, input.outputPath);
    return { frames, durationSec, width, height, elapsedMs: Date.now() - started };
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  } finally {
    await rm(listPath, { force: true });
  }
}

/** Every segment's length as planned, and one picture format for all (copying packets needs it). */
async function checkSegmentFiles(input: JoinInput): Promise<void> {
  const { plan, cut, segmentPaths, signal } = input;
  const files: PictureFile[] = [];
  // A few at a time: a long tape has dozens of segments, and each probe is a process.
  for (let i = 0; i < segmentPaths.length; i += 4) {
    const batch = segmentPaths.slice(i, i + 4).map((p) => probePictureFile(p, signal));
    files.push(...(await Promise.all(batch)));
  }
  for (const [i, segment] of cut.segments.entries()) {
    const file = at(files, i);
    checkSegmentLength({ plan, input: "", segment, frameSec: cut.frameSec }, file.durationSec);
    if (file.format !== files[0]?.format) {
      throw new FfmpegError(`segment ${i} is ${file.format}, segment 0 is ${files[0]?.format}`, "");
    }
  }
}
