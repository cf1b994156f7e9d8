/**
 * What the client reads before asking a price: a video's facts, or — for a file that is not a
 * video — one sentence saying what it is, raised before anything is quoted or charged. Each case
 * runs with the system's ffprobe and without it (the container-header reader), as an installed
 * client on a machine without ffmpeg would.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliFailure } from "./failures.js";
import { probeVideo } from "./probe.js";

const run = promisify(execFile);
let dir: string;
const hasFfmpeg = await run("ffmpeg", ["-version"]).then(
  () => true,
  () => false,
);

/** Makes `name` with ffmpeg from lavfi sources and `args`. */
async function make(name: string, args: string[]): Promise<string> {
  const path = join(dir, name);
  await run("ffmpeg", ["-v", "error", "-y", ...args, path]);
  return path;
}

const testsrc = (seconds: number) => [
  "-f",
  "lavfi",
  "-i",
  `testsrc=size=320x240:rate=25:duration=${seconds}`,
];
const sine = (seconds: number) => ["-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`];

const WITH = { ...process.env };
const WITHOUT = { ...process.env, FFPROBE_PATH: "/nonexistent/ffprobe" };

/** The failure probeVideo stops with for `file` under `env`. */
async function refusal(file: string, env: NodeJS.ProcessEnv): Promise<CliFailure> {
  const { size } = await import("node:fs/promises").then((fs) => fs.stat(file));
  const err = await probeVideo(file, size, env).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof CliFailure)) throw new Error(`${file} was taken for a video`);
  return err;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kinora-probe-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!hasFfmpeg)("probeVideo (skipped without ffmpeg)", () => {
  it.each([
    ["ffprobe", WITH],
    ["the header reader", WITHOUT],
  ])("reads a real video's length and size with %s", async (_how, env) => {
    const file = await make("ok.mp4", [...testsrc(2), ...sine(2), "-c:v", "mpeg4", "-c:a", "aac"]);
    const { size } = await import("node:fs/promises").then((fs) => fs.stat(file));
    const facts = await probeVideo(file, size, env);
    expect(facts).toMatchObject({ width: 320, height: 240, contentType: "video/mp4" });
    expect(facts.durationSec).toBeCloseTo(2, 0);
  });

  it.each([
    ["ffprobe", WITH],
    ["the header reader", WITHOUT],
  ])("refuses a photo, an empty file, a text file and sound alone with %s", async (_how, env) => {
    const jpeg = await make("boats.jpg", [...testsrc(1), "-frames:v", "1"]);
    const png = await make("still.png", [...testsrc(1), "-frames:v", "1"]);
    const empty = join(dir, "empty.mp4");
    await writeFile(empty, "");
    const text = join(dir, "notes.mp4");
    await writeFile(text, "Holiday 1994 — tape 2\nthe boats, the harbour\n".repeat(50));
    const m4a = await make("song.mp4", [...sine(2), "-c:a", "aac"]);
    const cases: [string, RegExp][] = [
      [
        jpeg,
        /^boats\.jpg is a still image \(JPEG\), not a video: .*kinora clip boats\.jpg "a prompt"/,
      ],
      [png, /^still\.png is a still image \(PNG\), not a video/],
      [empty, /^empty\.mp4 is empty \(0 bytes\): there is no video in it to restore\./],
      [text, /^notes\.mp4 is a text file, not a video\./],
      [m4a, /^song\.mp4 has sound but no picture: a restore needs a video\./],
    ];
    for (const [file, said] of cases) {
      const err = await refusal(file, env);
      expect(err.message, file).toMatch(said);
      expect(err.message, file).toMatch(/Nothing was charged\.$/);
      expect(err.fields).toMatchObject({ not_video: true });
    }
  });

  it("refuses a video of a single frame (ffprobe counts its frames)", async () => {
    const file = await make("one-frame.mp4", [...testsrc(1), "-frames:v", "1", "-c:v", "mpeg4"]);
    const err = await refusal(file, WITH);
    expect(err.message).toMatch(/^one-frame\.mp4 is a single still picture \(mpeg4\), not a video/);
  });

  it("names a file ffprobe cannot read without its path or ffprobe's words", async () => {
    const noise = join(dir, "noise.mp4");
    await writeFile(
      noise,
      Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 151 + 7) % 256)),
    );
    const err = await refusal(noise, WITH);
    expect(err.message).toBe(
      "noise.mp4 is not a video ffprobe can read: it may be damaged or cut short, or not a video at all. Nothing was charged.",
    );
    const debug = await refusal(noise, { ...WITH, KINORA_DEBUG: "1" });
    expect(debug.message).toMatch(/\(ffprobe: .+\)\. Nothing was charged\.$/);
  });
});
