/**
 * Real frames for the restore engine's decision tests: a committed photograph (fixtures/)
 * converted as the bench converts it (BT.709 → BT.601, limited range, 4:2:0), optionally panned
 * by a fraction of a pixel a frame (drawn at 4× and reduced, as a camera's sensor would sample
 * it), then damaged in plain code (levels, grain, colour slip) so a test states its damage.
 */

import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";

export const fixture = (name: string) =>
  fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/**
 * ffmpeg filters making a still photograph into a slow 3 s zoom at PAL SD (75 frames at 25 fps,
 * 720×576): real picture detail that moves as a tape's would.
 */
export const SLOW_ZOOM_SD = [
  "crop='min(iw,ih*4/3)':'min(ih,iw*3/4)'",
  "scale=960:720",
  "zoompan=z='1.1+0.1*on/75':x='(iw-iw/zoom)/2':y='(ih-ih/zoom)/2':d=75:s=720x576:fps=25",
];

export interface Frames {
  width: number;
  height: number;
  frames: Uint8Array[];
}

/**
 * `count` yuv420p frames of `width` × `height` from the middle 4:3 of a photograph; with `panX`
 * (pixels a frame, multiples of 0.25) the view moves right that much each frame.
 */
export async function stillFrames(
  file: string,
  width: number,
  height: number,
  opts: { count?: number; panX?: number } = {},
): Promise<Frames> {
  const count = opts.count ?? 1;
  const step = Math.round((opts.panX ?? 0) * 4);
  const out = join(
    tmpdir(),
    `kinora-still-${process.pid}-${Math.random().toString(36).slice(2)}.yuv`,
  );
  const wide = 4 * width + step * count;
  const vf = [
    "crop='min(iw,ih*4/3)':'min(ih,iw*3/4)'",
    `scale=${wide}:${4 * height}:flags=lanczos`,
    `crop=${4 * width}:${4 * height}:'n*${step}':0`,
    `scale=${width}:${height}:flags=area`,
    "zscale=matrixin=709:matrix=470bg:rangein=full:range=limited",
    "format=yuv420p",
  ].join(",");
  try {
    await runFfmpeg(
      ["-y", "-loop", "1", "-i", file, "-vf", vf, "-frames:v", String(count)].concat([
        "-f",
        "rawvideo",
        out,
      ]),
    );
    const bytes = await readFile(out);
    const size = (width * height * 3) / 2;
    const frames: Uint8Array[] = [];
    for (let at = 0; at + size <= bytes.length; at += size)
      frames.push(new Uint8Array(bytes.subarray(at, at + size)));
    return { width, height, frames };
  } finally {
    await rm(out, { force: true });
  }
}

const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/** A copy of a frame with luma and chroma mapped by `y` and `c` (codes in, codes out). */
export function mapFrame(
  f: Frames,
  frame: Uint8Array,
  y: (v: number) => number,
  c: (v: number) => number,
): Uint8Array {
  const luma = f.width * f.height;
  const out = new Uint8Array(frame.length);
  for (let i = 0; i < luma; i++) out[i] = clamp(y(frame[i] as number));
  for (let i = luma; i < frame.length; i++) out[i] = clamp(c(frame[i] as number));
  return out;
}

/** The bench's fade (bench/quality/degradations.ts `fade`): code 16 → black, 235 → white. */
export function faded(f: Frames, frame: Uint8Array, black: number, white: number, sat: number) {
  const gain = (white - black) / 219;
  return mapFrame(
    f,
    frame,
    (v) => black + (v - 16) * gain,
    (v) => 128 + (v - 128) * sat,
  );
}

/** Seeded Gaussian grain of σ `y` (luma) and `c` (chroma), added to a copy of a frame. */
export function grainy(f: Frames, frame: Uint8Array, y: number, c: number, seed = 1): Uint8Array {
  let s = seed >>> 0;
  const uniform = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 0.5) / 2 ** 32;
  };
  const gauss = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const luma = f.width * f.height;
  const out = new Uint8Array(frame.length);
  for (let i = 0; i < frame.length; i++)
    out[i] = clamp((frame[i] as number) + (i < luma ? y : c) * gauss());
  return out;
}
