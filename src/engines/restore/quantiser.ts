/**
 * How hard an MPEG-1/2 source was quantised: the mean quantiser scale of its I frames'
 * macroblocks, as the decoder reports them (`-debug qp`). A picture starved of bits says so in
 * its quantiser even where its blocks are too faint to see (held-out `meadow blocking-1200`
 * read 1.19 on the blockiness measure, among the clean pictures): on the tuning set the clean,
 * faded, soft, slipped, interlaced and dropout cells (MPEG-2 at 8–12 Mbit/s) read 4.3–6.9, the
 * blocked ones (0.8–2 Mbit/s) 18.6–48.6, grainy ones 4.6–15.1 (grain is dear to code).
 * LIMITS.starvedQuantiser; docs/restore.md, "Blocking: starved pictures read by their
 * quantiser".
 */
import { runFfmpegForMedia } from "./run.js";
import { secondsText } from "./sampling.js";
import type { Sample, SourceInfo } from "./types.js";

/**
 * Codecs whose quantiser scale the reading is on: MPEG-1 and MPEG-2 (2–62 for a linear scale,
 * as the decoder prints it). Others (H.264's QP, DV) are on other scales and are not read.
 */
export const QUANTISER_CODECS: ReadonlySet<string> = new Set(["mpeg1video", "mpeg2video"]);

/** The least a scale printed in 3 digits can be. */
const OVERFLOW_SCALE = 100;

/**
 * Reads `-debug qp` output chunk by chunk: after each "New frame, type: X" line, rows of
 * 2-character quantiser fields, one per macroblock. Keeps each intra (I) frame's mean, never
 * the whole text: the rate control spends an I frame's bits first, so its quantiser says most
 * plainly how many there were (tuning set: clean cells' I frames 4.3–6.9, blocked ones'
 * 18.6–48.6, a 2.7× gap; over every frame 9.19 against 11.78).
 */
export function createQuantiserReader(rowFields?: number): {
  push(chunk: string): void;
  /** Mean over the I frames of each one's mean quantiser; null when no I frame was read. */
  result(): number | null;
} {
  let pending = "";
  let sum = 0;
  let count = 0;
  let frames = 0;
  let frameSum = 0;
  /** The frame being read: "I" (counted), another type (skipped), or none (between frames). */
  let type: string | null = null;
  const endFrame = () => {
    if (type === "I" && count > 0) {
      frameSum += sum / count;
      frames++;
    }
    sum = 0;
    count = 0;
  };
  const line = (text: string) => {
    const body = text.replace(/^\[[^\]]*\]\s?/, "");
    const start = /^New frame, type: (\w+)/.exec(body);
    if (start) {
      endFrame();
      type = start[1] ?? null;
      return;
    }
    // A row of fields is the decoder's line of digits and spaces, 2 characters a macroblock.
    const digits = text !== body && /^[ 0-9]+$/.test(body);
    // The decoder prints each field as %2d: a scale of 100 or more (MPEG-2's non-linear scale
    // reaches 112, as capture cards use it) takes 3 characters and shifts the rest of its row,
    // which then cannot be cut into fields. Such a row holds as many 3-digit fields as it is
    // longer than the picture's macroblocks: they count at 100 (the least they can be), the
    // rest of the row is skipped (the other rows give the frame's mean).
    const fields = rowFields ?? 0;
    const extra = fields > 0 ? body.length - 2 * fields : 0;
    if (digits && extra > 0 && extra <= fields) {
      if (type !== "I") return;
      sum += OVERFLOW_SCALE * extra;
      count += extra;
      return;
    }
    if (!digits || body.length % 2 !== 0) {
      if (text !== body) {
        endFrame();
        type = null;
      }
      return;
    }
    if (type !== "I") return;
    for (let i = 0; i < body.length; i += 2) {
      sum += Number(body.slice(i, i + 2));
      count++;
    }
  };
  return {
    push(chunk) {
      const lines = (pending + chunk).split(/\r?\n|\r/);
      pending = lines.pop() ?? "";
      for (const l of lines) line(l);
    },
    result() {
      if (pending) line(pending);
      pending = "";
      endFrame();
      type = null;
      return frames > 0 ? Math.round((frameSum / frames) * 100) / 100 : null;
    },
  };
}

/**
 * The source's mean I-frame quantiser over the probe's excerpts (each decoded on one thread, so
 * the decoder's report is in frame order; an excerpt without an I frame adds nothing), or null
 * for a codec not in QUANTISER_CODECS or where no I frame was read. Only the I frames are
 * decoded (`-skip_frame nokey`): 0.07 CPU s for 3 s of SD here, against 0.32 decoding every
 * frame, and the same decision on every clip of the quality bench (LIMITS.starvedQuantiser).
 */
export async function readQuantiser(
  inputPath: string,
  source: SourceInfo,
  samples: Sample[],
  signal?: AbortSignal,
): Promise<number | null> {
  if (!QUANTISER_CODECS.has(source.videoCodec)) return null;
  const means: number[] = [];
  for (const sample of samples) {
    // One field per 16-px macroblock of a row: a longer row holds a 3-digit scale.
    const reader = createQuantiserReader(Math.ceil(source.width / 16));
    // No -v: `-debug qp` raises the log level to print its tables only when none is set.
    const args = ["-threads", "1", "-skip_frame", "nokey", "-debug", "qp"];
    // As the sound's excerpts (probe-audio.ts): ffmpeg's input seek adds the file's start time.
    if (sample.startSec > 0) args.push("-ss", secondsText(sample.startSec));
    args.push("-i", inputPath, "-map", `0:${source.videoStreamIndex}`);
    args.push("-t", secondsText(sample.seconds), "-an", "-f", "null", "-");
    await runFfmpegForMedia(args, { signal, onStderr: reader.push, maxCaptureBytes: 64 * 1024 });
    const mean = reader.result();
    if (mean !== null) means.push(mean);
  }
  if (means.length === 0) return null;
  return Math.round((means.reduce((a, b) => a + b, 0) / means.length) * 100) / 100;
}
