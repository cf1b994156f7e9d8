import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, pipeTo, tempDir } from "../../../test/restore/media.js";
import {
  FFMPEG_WORDS,
  makeUnusableInputs,
  type UnusableInput,
} from "../../../test/restore/unusable-media.js";
import { ffprobeJson, runFfmpeg } from "../ffmpeg.js";
import { measureDurationSec, parseOutTimeSec } from "./duration.js";
import { MediaError } from "./errors.js";

let dir: string;
let cleanup: () => Promise<void>;
const path = (name: string) => join(dir, name);

async function headerDuration(file: string): Promise<number | null> {
  const probe = await ffprobeJson(["-show_format", file]);
  const d = Number((probe.format as Record<string, unknown>).duration);
  return Number.isFinite(d) ? d : null;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  const source = ["-f", "lavfi", "-t", "3.4", "-i", "testsrc2=s=160x120:r=25"];
  const audio = ["-f", "lavfi", "-t", "3.4", "-i", "sine=f=300"];
  const codecs = ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"];
  await Promise.all([
    runFfmpeg(["-y", ...source, ...audio, ...codecs, "-f", "mpegts", path("clip.ts")]),
    pipeTo(path("piped.mkv"), [...source, ...audio, ...codecs, "-f", "matroska"]),
    generate(path("long.mp4"), {
      video: "testsrc2=s=160x120:r=25",
      seconds: 4,
      extra: ["-movflags", "+faststart"],
    }),
  ]);
  // Index first, then cut the media data short: the header still promises 4 s.
  const whole = await readFile(path("long.mp4"));
  await writeFile(path("cut.mp4"), whole.subarray(0, Math.floor(whole.length * 0.5)));
}, 60_000);

afterAll(() => cleanup());

describe("measureDurationSec", () => {
  it("measures MPEG-TS, whose header only estimates", async () => {
    expect(Math.abs((await measureDurationSec(path("clip.ts"))) - 3.4)).toBeLessThan(0.2);
  });

  it("measures piped Matroska, which has no duration in its header", async () => {
    expect(await headerDuration(path("piped.mkv"))).toBeNull();
    expect(Math.abs((await measureDurationSec(path("piped.mkv"))) - 3.4)).toBeLessThan(0.2);
  });

  it("refuses a file cut off short of what its header promises, saying how much arrived", async () => {
    expect(await headerDuration(path("cut.mp4"))).toBeCloseTo(4, 1);
    // What is really there: decode every frame and see where the last one ends.
    const decoded = await runFfmpeg([
      "-i",
      path("cut.mp4"),
      "-f",
      "null",
      "-",
      "-progress",
      "pipe:2",
    ]);
    const truth = parseOutTimeSec(decoded.stderr) ?? 0;
    expect(truth).toBeLessThan(3.5);
    const err = await measureDurationSec(path("cut.mp4")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err).toMatchObject({ code: "corrupt" });
    // The packets, not the header, say where it stops; ffmpeg's words go to the detail only.
    const said = Number(/stops after ([\d.]+) s of its 4 s/.exec((err as Error).message)?.[1]);
    expect(Math.abs(said - truth)).toBeLessThan(0.2);
    expect((err as MediaError).message).not.toMatch(FFMPEG_WORDS);
    expect((err as MediaError).detail).toMatch(/partial file|corrupt/i);
  });
});

describe("measureDurationSec refuses what is not a usable video", () => {
  let inputs: Record<string, UnusableInput>;
  beforeAll(async () => {
    inputs = await makeUnusableInputs(dir);
  }, 60_000);

  it("with the customer's sentence and code for each, ffmpeg's words kept for the log", async () => {
    for (const [name, input] of Object.entries(inputs)) {
      const err = await measureDurationSec(input.path).catch((e: unknown) => e);
      expect(err, name).toBeInstanceOf(MediaError);
      expect({ name, code: (err as MediaError).code }).toEqual({ name, code: input.code });
      expect((err as MediaError).message, name).toMatch(input.says);
      expect((err as MediaError).message, name).not.toMatch(FFMPEG_WORDS);
      // A damaged file's log line says what ffmpeg saw.
      if (input.code === "corrupt") expect((err as MediaError).detail, name).toBeTruthy();
    }
  });

  it("measures the same video before it was damaged", async () => {
    const whole = join(dir, "whole.mp4");
    expect(Math.abs((await measureDurationSec(whole)) - 6)).toBeLessThan(0.1);
  });
});

describe("parseOutTimeSec", () => {
  it("reads the last out_time_us and rejects an empty scan", () => {
    expect(parseOutTimeSec("out_time_us=1000000\nout_time_us=2500000\nprogress=end")).toBe(2.5);
    expect(parseOutTimeSec("out_time_us=N/A\nprogress=end")).toBeNull();
    expect(parseOutTimeSec("out_time_us=0\n")).toBeNull();
  });
});
