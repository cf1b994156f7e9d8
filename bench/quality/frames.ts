/**
 * Side-by-side stills for looking, not scoring: the same crop of one frame from the reference,
 * the damaged input and every contender, each brought to the reference's size and matrix the
 * way the scores are, in a 4×2 grid (one PNG per clip and degradation).
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";
import { probeSource } from "../../src/engines/restore/probe.js";
import { matrixOf } from "../../src/engines/restore/quality.js";

const Z = { bt601: "470bg", bt709: "709" } as const;

/**
 * Writes the grid for the frame shown `atSec` into the clips (each file's own frame at that
 * time, so 50p outputs line up with the 25p reference). Throws when no picture came out.
 */
export async function writeFrames(
  reference: string,
  tiles: { label: string; file: string }[],
  out: string,
  atSec: number,
): Promise<void> {
  const ref = await probeSource(reference);
  const crop = { w: 400, h: 300, x: Math.round(ref.width * 0.35), y: Math.round(ref.height * 0.4) };
  const all = [{ label: "reference", file: reference }, ...tiles].slice(0, 8);
  const args: string[] = [];
  const parts: string[] = [];
  for (const [i, t] of all.entries()) {
    const info = await probeSource(t.file);
    const n = Math.round(atSec * (info.fps ?? ref.fps ?? 25));
    args.push("-i", t.file);
    parts.push(
      `[${i}:v]select='eq(n,${n})',zscale=w=${ref.width}:h=${ref.height}:filter=lanczos:` +
        `matrixin=${Z[matrixOf(info)]}:matrix=${Z[matrixOf(ref)]},` +
        `crop=${crop.w}:${crop.h}:${crop.x}:${crop.y},format=rgb24[t${i}]`,
    );
  }
  while (parts.length < 8) {
    parts.push(`color=c=gray:s=${crop.w}x${crop.h}:d=1,format=rgb24[t${parts.length}]`);
  }
  const layout = "0_0|w0_0|w0+w1_0|w0+w1+w2_0|0_h0|w0_h0|w0+w1_h0|w0+w1+w2_h0";
  const graph = `${parts.join(";")};${[0, 1, 2, 3, 4, 5, 6, 7].map((i) => `[t${i}]`).join("")}xstack=inputs=8:layout=${layout}`;
  // A frame past a file's end selects nothing, and ffmpeg then ends without error or picture.
  await rm(out, { force: true });
  await runFfmpeg(["-y", ...args, "-filter_complex", graph, "-frames:v", "1", out]);
  if (!existsSync(out)) throw new Error(`no still written at ${atSec} s: is a clip shorter?`);
}
