import { beforeAll, describe, expect, it } from "vitest";
import {
  type Frames,
  fixture,
  grainy,
  stillFrames,
} from "../../../test/restore-quality/still-frames.js";
import { blockSigmas, quietBlockSigma, quietQuantile } from "./temporal-noise.js";

/** The planes of a yuv420p frame. */
function planes(f: Frames, frame: Uint8Array) {
  const luma = f.width * f.height;
  const chroma = luma / 4;
  return {
    y: frame.subarray(0, luma),
    u: frame.subarray(luma, luma + chroma),
    v: frame.subarray(luma + chroma, luma + 2 * chroma),
  };
}

/** Every pair's luma and chroma planes, at the sizes the probe reads them. */
function pairs(f: Frames, frames: Uint8Array[]) {
  const out: { a: Uint8Array; b: Uint8Array; w: number; h: number }[] = [];
  for (let i = 0; i + 1 < frames.length; i += 2) {
    const a = planes(f, frames[i] as Uint8Array);
    const b = planes(f, frames[i + 1] as Uint8Array);
    out.push({ a: a.y, b: b.y, w: f.width, h: f.height });
    out.push({ a: a.u, b: b.u, w: f.width / 2, h: f.height / 2 });
    out.push({ a: a.v, b: b.v, w: f.width / 2, h: f.height / 2 });
  }
  return out;
}

/** The probe's reading, the reference way: every block's best σ, then the quantile. */
const reference = (p: { a: Uint8Array; b: Uint8Array; w: number; h: number }, share: number) =>
  quietQuantile(blockSigmas(p.a, p.b, p.w, p.h), share);

describe("the quiet blocks' σ, searched only where it can be", () => {
  let forest: Frames;
  let ladybird: Frames;
  beforeAll(async () => {
    // A pan of three quarters of a pixel a frame (half-pixel phases win), and a still picture.
    forest = await stillFrames(fixture("forest-640.jpg"), 320, 192, { count: 6, panX: 0.75 });
    ladybird = await stillFrames(fixture("ladybird-1024.jpg"), 320, 240, { count: 4 });
  });

  it("equals the quantile of every block's σ, to the bit: clean, grainy, flickering, panned", () => {
    const cases = [
      ...pairs(forest, forest.frames),
      ...pairs(
        forest,
        forest.frames.map((f, i) => grainy(forest, f, 5, 7, i + 1)),
      ),
      ...pairs(
        ladybird,
        ladybird.frames.map((f, i) => grainy(ladybird, f, 2, 3, i + 7)),
      ),
      // A brightness jump between the frames of each pair: the block means differ, σ does not.
      ...pairs(
        ladybird,
        ladybird.frames.map((f, i) => (i % 2 ? f.map((v) => Math.min(255, v + 9)) : f)),
      ),
    ];
    let compared = 0;
    for (const p of cases) {
      for (const share of [0, 0.03, 0.1, 0.5, 0.999]) {
        expect(Object.is(quietBlockSigma(p.a, p.b, p.w, p.h, share), reference(p, share))).toBe(
          true,
        );
        compared++;
      }
    }
    expect(compared).toBe(cases.length * 5);
  });

  it("reads NaN where no block fits inside the search's margins, as the quantile of none does", () => {
    const tiny = new Uint8Array(20 * 20).fill(128);
    expect(quietBlockSigma(tiny, tiny, 20, 20, 0.03)).toBeNaN();
    expect(reference({ a: tiny, b: tiny, w: 20, h: 20 }, 0.03)).toBeNaN();
  });
});
