import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { jpegSize } from "./jpeg-size.js";

describe("jpegSize", () => {
  it("reads the size ffmpeg wrote, without decoding", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "kinora-jpeg-"));
    for (const [w, h] of [
      [1440, 1080],
      [720, 576],
      [2, 2],
    ] as const) {
      const file = path.join(dir, `${w}x${h}.jpg`);
      const src = `testsrc2=size=${w}x${h}:duration=1`;
      execFileSync("ffmpeg", [
        "-loglevel",
        "error",
        "-y",
        "-f",
        "lavfi",
        "-i",
        src,
        "-frames:v",
        "1",
        file,
      ]);
      expect(jpegSize(readFileSync(file))).toEqual({ width: w, height: h });
    }
  });

  it("says null for what is not a JPEG or has no frame header", () => {
    expect(jpegSize(Buffer.from("not a jpeg at all"))).toBeNull();
    expect(jpegSize(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 8, 1, 2, 3, 4, 5, 6]))).toBeNull();
    expect(jpegSize(Buffer.from([0xff, 0xd8]))).toBeNull();
  });
});
