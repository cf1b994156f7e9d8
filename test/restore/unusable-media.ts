/**
 * Files that are not a usable video, made by the real ffmpeg, for the worker's refusals: a
 * still picture (JPEG, PNG, and an MP4 of one frame), sound only (AAC in M4A, MP3 with cover
 * art), a video under a second, an MP4 whose index is whole but whose picture data turns to
 * garbage after the first 40 % (a valid header, keyframes every second), an MP4 cut off a
 * third of the way through (its header still promises the whole length), and 36 s of footage
 * packed into 3 s at 300 frames a second.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";

/** One fixture: its file and size, and what the worker must say of it. */
export interface UnusableInput {
  path: string;
  sizeBytes: number;
  /** The job's error_code once the worker refused it. */
  code: "still_image" | "no_video" | "too_short" | "corrupt" | "unsupported";
  /** Words the customer's sentence must contain. */
  says: RegExp;
}

const X264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];

/** Bytes from `fromShare` of `file`'s media data on replaced by a fixed pseudo-random pattern. */
async function garbleAfter(file: string, out: string, fromShare: number) {
  const bytes = await readFile(file);
  const mdat = bytes.indexOf("mdat");
  if (mdat < 0) throw new Error(`${file} has no mdat box`);
  const from = mdat + 4 + Math.floor((bytes.length - mdat - 4) * fromShare);
  let x = 0x2545f491;
  for (let i = from; i < bytes.length; i++) {
    // xorshift32: the same "garbage" every run.
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  await writeFile(out, bytes);
}

/** Makes every fixture in `dir` (about a second of ffmpeg on two cores). */
export async function makeUnusableInputs(dir: string): Promise<Record<string, UnusableInput>> {
  const p = (name: string) => path.join(dir, name);
  const picture = ["-f", "lavfi", "-i", "testsrc2=s=640x400"];
  const six = ["-f", "lavfi", "-t", "6", "-i", "testsrc2=s=320x240:r=25"];
  const tone = (sec: number) => ["-f", "lavfi", "-t", String(sec), "-i", "sine=f=440"];
  await Promise.all([
    runFfmpeg(["-y", ...picture, "-frames:v", "1", p("boats.jpg")]),
    runFfmpeg(["-y", ...picture, "-frames:v", "1", p("boats.png")]),
    runFfmpeg(["-y", ...picture, "-frames:v", "1", ...X264, p("one-frame.mp4")]),
    runFfmpeg(["-y", ...tone(3), "-c:a", "aac", p("voice.m4a")]),
    // An MP3 with its album cover: a "video" stream that is only attached art.
    runFfmpeg([
      "-y",
      ...tone(3),
      ...["-f", "lavfi", "-i", "testsrc2=s=300x300:d=0.04"],
      ...["-map", "0:a", "-map", "1:v", "-c:a", "libmp3lame", "-c:v", "mjpeg"],
      ...["-disposition:v", "attached_pic", p("song.mp3")],
    ]),
    runFfmpeg([
      "-y",
      ...["-f", "lavfi", "-t", "0.4", "-i", "testsrc2=s=320x240:r=25"],
      ...X264,
      p("blink.mp4"),
    ]),
    runFfmpeg([
      "-y",
      ...six,
      ...tone(6),
      ...X264,
      "-g",
      "25",
      "-c:a",
      "aac",
      ...["-movflags", "+faststart"],
      p("whole.mp4"),
    ]),
    // 36 s of 25p packed into 3 s at 300 fps: seconds that carry twelve times their footage.
    runFfmpeg([
      "-y",
      ...["-f", "lavfi", "-t", "36", "-i", "testsrc2=s=160x120:r=25"],
      ...["-vf", "setpts=PTS/12", "-r", "300"],
      ...X264,
      p("packed.mp4"),
    ]),
  ]);
  await garbleAfter(p("whole.mp4"), p("garbled.mp4"), 0.4);
  const whole = await readFile(p("whole.mp4"));
  await writeFile(p("cut-off.mp4"), whole.subarray(0, Math.floor(whole.length / 3)));

  const still = /still picture, not a video/;
  const entries: [string, UnusableInput["code"], RegExp][] = [
    ["boats.jpg", "still_image", still],
    ["boats.png", "still_image", still],
    ["one-frame.mp4", "still_image", still],
    ["voice.m4a", "no_video", /sound only, with no picture/],
    ["song.mp3", "no_video", /sound only, with no picture/],
    ["blink.mp4", "too_short", /only 0\.\d\d s long: a restore needs at least 1 s/],
    ["garbled.mp4", "corrupt", /picture could not be decoded: the file is damaged/],
    ["cut-off.mp4", "corrupt", /stops after \d(\.\d)? s of its 6 s: the file is cut off/],
    ["packed.mp4", "unsupported", /runs at 300 frames a second: a restore takes at most 60/],
  ];
  const out: Record<string, UnusableInput> = {};
  for (const [name, code, says] of entries) {
    out[name] = { path: p(name), sizeBytes: (await stat(p(name))).size, code, says };
  }
  return out;
}

/** Words of ffmpeg's own that must never reach a customer. */
export const FFMPEG_WORDS =
  /ffmpeg|ffprobe|moov|NAL|mdat|demux|decoder|stream #|packet|codec|Invalid data|stderr/i;
