/**
 * The source's MPEG quantiser (quantiser.ts): the decoder's `-debug qp` report read frame by
 * frame, and on real MPEG-2 clips a starved one reading over LIMITS.starvedQuantiser and a
 * well-fed one under it.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/restore/media.js";
import { runFfmpeg } from "../ffmpeg.js";
import { LIMITS } from "./limits.js";
import { probeSource } from "./probe.js";
import { createQuantiserReader, readQuantiser } from "./quantiser.js";

let dir: { dir: string; cleanup: () => Promise<void> };
const at = (name: string) => join(dir.dir, name);

beforeAll(async () => {
  dir = await tempDir();
  const src = ["-f", "lavfi", "-i", "testsrc2=s=352x288:r=25:d=2", "-pix_fmt", "yuv420p"];
  // As the bench damages its clips (bench/quality/degradations.ts): a VBV, so the rate control
  // holds the I frames to their share.
  const vbv = (k: number) => ["-maxrate", `${Math.round(k * 1.25)}k`, "-bufsize", `${k / 2}k`];
  const mpeg2 = (k: number) =>
    ["-c:v", "mpeg2video", "-b:v", `${k}k`, ...vbv(k)].concat(["-g", "12", "-bf", "2"]);
  // 0.33 and 2.2 Mbit/s at CIF: 1.2 and 8 Mbit/s at full PAL size, the bench's starved and
  // clean rates per pixel.
  await runFfmpeg(["-y", ...src, ...mpeg2(300), at("starved.mpg")]);
  await runFfmpeg(["-y", ...src, ...mpeg2(2000), at("fed.mpg")]);
  await runFfmpeg(["-y", ...src, "-c:v", "libx264", "-crf", "40", at("h264.mp4")]);
}, 60_000);

afterAll(() => dir.cleanup());

describe("the MPEG quantiser", () => {
  it("averages each I frame's macroblocks, then the I frames, whatever the chunks' cuts", () => {
    const text = [
      "[mpeg2video @ 0x1] New frame, type: I",
      "[mpeg2video @ 0x1] 10101010",
      "[mpeg2video @ 0x1]  4 4 4 4",
      "frame=    1 fps=0.0 q=-0.0 size=N/A\r[mpeg2video @ 0x1] New frame, type: B",
      "[mpeg2video @ 0x1] 30303030",
      "[mpeg2video @ 0x1] New frame, type: I",
      "[mpeg2video @ 0x1] 20202020",
      "[mpeg2video @ 0x1] New frame, type: P",
      "[mpeg2video @ 0x1] 40404040",
      "",
    ].join("\n");
    for (const cut of [1, 7, 40, text.length]) {
      const reader = createQuantiserReader();
      for (let i = 0; i < text.length; i += cut) reader.push(text.slice(i, i + cut));
      // I frames' means 7 and 20; the B and P frames are not counted.
      expect(reader.result()).toBe(13.5);
    }
    // A scale of 100 or more takes 3 characters and shifts its row: with the row's width known
    // (4 macroblocks here), its one 3-digit field counts at 100 and the rest of it is skipped,
    // not misread: (100 + 4 × 8) / 5.
    const wide = createQuantiserReader(4);
    wide.push(
      [
        "[mpeg2video @ 0x1] New frame, type: I",
        "[mpeg2video @ 0x1] 112 8 8 8",
        "[mpeg2video @ 0x1]  8 8 8 8",
        "",
      ].join("\n"),
    );
    expect(wide.result()).toBe(26.4);
    const none = createQuantiserReader();
    none.push("Input #0, mpeg, from 'x.mpg':\n  Duration: 00:00:01.00\n");
    expect(none.result()).toBeNull();
  });

  it("reads a starved MPEG-2 clip over the threshold and a well-fed one under it", async () => {
    const sample = [{ startSec: 0, seconds: 2 }];
    const read = async (name: string) =>
      readQuantiser(at(name), await probeSource(at(name)), sample);
    expect(await read("starved.mpg")).toBeGreaterThan(LIMITS.starvedQuantiser);
    expect(await read("fed.mpg")).toBeLessThan(LIMITS.starvedQuantiser);
    // H.264's QP is on another scale: not read.
    expect(await read("h264.mp4")).toBeNull();
  }, 60_000);
});
