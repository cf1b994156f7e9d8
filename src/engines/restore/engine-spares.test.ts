/**
 * The engine's spare analysis ffmpegs over its restores: how many wait when a restore is over,
 * that the next restore takes them, and that they start only once its result is out.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, tempDir } from "../../../test/restore/media.js";
import { spareFfmpegs, spareFfmpegsNow, sparesWaiting } from "../../../test/restore/processes.js";
import { createFfmpegRestoreEngine } from "./index.js";
import { ANALYSIS_SPARES } from "./probe.js";

let dir: string;
let cleanup: () => Promise<void>;
const path = (name: string) => join(dir, name);

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  // Long enough for three excerpts, a keyframe a second: the video analysis runs in processes
  // side by side, and the sound's in one more.
  await generate(path("excerpts.mp4"), {
    video: "testsrc2=s=160x120:r=25",
    seconds: 9,
    audio: "sine=f=440:sample_rate=44100",
    codec: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "25"],
  });
}, 60_000);

afterAll(() => cleanup());

describe("restore engine spares", () => {
  it("starts spare analysis ffmpegs when a restore is over, and the next restore takes them", async () => {
    const own = createFfmpegRestoreEngine({ threads: 2 });
    const job = (name: string) =>
      own.restore({ inputPath: path("excerpts.mp4"), outputPath: path(name), quality: "faithful" });
    const others = new Set(await spareFfmpegs());
    const mine = async () => (await spareFfmpegs()).filter((pid) => !others.has(pid));
    await job("spare-1.mp4");
    // The result comes first: starting processes blocks, so they start on the next turn.
    expect(spareFfmpegsNow().filter((pid) => !others.has(pid))).toEqual([]);
    const first = await mine();
    expect(first).toHaveLength(ANALYSIS_SPARES);
    // Once loaded, each blocks reading its stdin for a graph, using no CPU (the bench waits so).
    await expect.poll(() => sparesWaiting(), { timeout: 5000, interval: 20 }).toBe(true);
    await job("spare-2.mp4");
    // The spares ran the second restore's analyses (the picture's three, the sound's) and
    // exited; as many new ones wait.
    const after = await mine();
    expect(after).toHaveLength(ANALYSIS_SPARES);
    expect(after.filter((pid) => first.includes(pid))).toEqual([]);
    own.close();
    // close() ends them (their stdin closes); on a loaded machine an ffmpeg may take longer
    // than a moment to exit (two still alive 100 ms after, at load 10): wait for it.
    await expect.poll(() => mine(), { timeout: 10_000, interval: 50 }).toEqual([]);
  });
});
