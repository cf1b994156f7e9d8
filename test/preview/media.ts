/** Small damaged clips for the preview tests, made by ffmpeg from its own test sources. */
import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A small interlaced PAL-rate clip with sound (128×96 by default: Studio Max's non-local means
 * is the preview's dearest step, and it scales with the picture), with heavy grain from
 * `grainFromSec` on (the damage a preview should find): `seconds` long.
 */
export async function damagedClip(
  dir: string,
  seconds: number,
  grainFromSec: number,
  name = `damaged-${seconds}.mp4`,
  size = "128x96",
): Promise<{ path: string; sizeBytes: number }> {
  const out = path.join(dir, name);
  const video = [
    `testsrc2=size=${size}:rate=50:duration=${seconds}`,
    `noise=alls=40:allf=t:enable='gte(t,${grainFromSec})'`,
    "tinterlace=mode=interleave_top",
    "setfield=tff",
  ].join(",");
  await run("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    video,
    "-f",
    "lavfi",
    "-i",
    `sine=frequency=440:duration=${seconds}`,
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-flags",
    "+ilme+ildct",
    "-pix_fmt",
    "yuv420p",
    "-c:a",
    "aac",
    "-shortest",
    out,
  ]);
  return { path: out, sizeBytes: (await stat(out)).size };
}

/**
 * A progressive 160×120 clip at 10 frames a second of `seconds` (cheap to make and read even
 * when long), grainy from `grainFromSec` on when given.
 */
export async function plainClip(dir: string, seconds: number, name: string, grainFromSec?: number) {
  const out = path.join(dir, name);
  const grain =
    grainFromSec === undefined ? "" : `,noise=alls=40:allf=t:enable='gte(t,${grainFromSec})'`;
  await run("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    `testsrc=size=160x120:rate=10:duration=${seconds}${grain}`,
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    out,
  ]);
  return { path: out, sizeBytes: (await stat(out)).size };
}

/**
 * A minute of 25p footage packed into 5 s at 300 frames a second (the 2026-12-04 review's way
 * to have a free preview restore a whole minute): 160×120, cheap to make.
 */
export async function packedClip(dir: string, name: string) {
  const out = path.join(dir, name);
  await run("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-y"],
    ...["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=60"],
    ...["-vf", "setpts=PTS/12", "-r", "300"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", out],
  ]);
  return { path: out, sizeBytes: (await stat(out)).size };
}
