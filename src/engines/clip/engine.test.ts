import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffprobeJson, runFfmpeg } from "../ffmpeg.js";
import { type ClipInput, createFfmpegClipEngine } from "./engine.js";
import { ImageError } from "./image.js";
import { planClip } from "./plan.js";
import type { SoundKind } from "./words.js";

let dir: string;
let photo: string;
const engine = createFfmpegClipEngine();

/** A photo-like still: smooth gradients, hard edges and fine texture, so motion is measurable. */
async function makePhoto(path: string, width: number, height: number): Promise<void> {
  const px = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const grid = ((x >> 5) + (y >> 5)) % 2 === 0 ? 40 : 0;
      const ripple = 30 * Math.sin(x / 23) * Math.cos(y / 31);
      px[i] = (x * 200) / width + grid;
      px[i + 1] = (y * 200) / height + ripple + 40;
      px[i + 2] = 120 + ripple + grid;
    }
  }
  await sharp(px, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .toFile(path);
}

function input(name: string, extra: Partial<ClipInput> = {}): ClipInput {
  return {
    imagePath: photo,
    outputPath: join(dir, `${name}.mp4`),
    prompt: "waves on a quiet beach, slow zoom in",
    size: "480p",
    loop: false,
    seed: 1,
    ...extra,
  };
}

async function sha256(path: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(path))
    .digest("hex");
}

interface Stream {
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  channels?: number;
}

async function probe(path: string) {
  const json = await ffprobeJson(["-show_format", "-show_streams", path]);
  const format = json.format as { duration: string; format_name: string };
  return { duration: Number(format.duration), streams: json.streams as Stream[] };
}

/** PSNR (dB, luma+chroma average) between two frames of one clip. */
async function psnr(path: string, a: number, b: number): Promise<number> {
  const pick = (n: number) => `select='eq(n\\,${n})',setpts=PTS-STARTPTS`;
  const res = await runFfmpeg([
    ...["-v", "info", "-i", path, "-i", path],
    ...["-filter_complex", `[0:v]${pick(a)}[x];[1:v]${pick(b)}[y];[x][y]psnr`],
    ...["-frames:v", "1", "-f", "null", "-"],
  ]);
  const avg = /average:(\S+)/.exec(res.stderr)?.[1];
  return avg === "inf" ? 100 : Number(avg);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kinora-clip-test-"));
  photo = join(dir, "photo.jpg");
  await makePhoto(photo, 1600, 1000);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("ffmpeg clip engine", () => {
  it("makes a 5.00 s 854×480 H.264 + AAC clip with faststart and reports progress", async () => {
    const seen: number[] = [];
    const result = await engine.makeClip(input("a", { onProgress: (f) => seen.push(f) }));
    expect(result).toMatchObject({ durationSec: 5, width: 854, height: 480, motion: "zoom_in" });
    expect(result.sound).toBe("ocean");

    const { duration, streams } = await probe(join(dir, "a.mp4"));
    expect(Math.abs(duration - 5)).toBeLessThanOrEqual(0.05);
    const video = streams.filter((s) => s.codec_type === "video");
    const audio = streams.filter((s) => s.codec_type === "audio");
    expect(video).toEqual([
      expect.objectContaining({ codec_name: "h264", width: 854, height: 480, pix_fmt: "yuv420p" }),
    ]);
    expect(audio).toEqual([expect.objectContaining({ codec_name: "aac", channels: 2 })]);
    // faststart: the index (moov) comes before the media data.
    const head = (await readFile(join(dir, "a.mp4"))).subarray(0, 4096).toString("latin1");
    expect(head.indexOf("moov")).toBeGreaterThan(0);
    expect(head.indexOf("moov")).toBeLessThan(head.indexOf("mdat") >>> 0);

    expect(seen.at(-1)).toBe(1);
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
    expect((await readdir(dir)).filter((f) => f.includes(".work-"))).toEqual([]);
  });

  it("is byte-identical for the same seed and differs for another seed", async () => {
    await engine.makeClip(input("b"));
    await engine.makeClip(input("c", { seed: 2 }));
    const first = await sha256(join(dir, "a.mp4"));
    expect(await sha256(join(dir, "b.mp4"))).toBe(first);
    expect(await sha256(join(dir, "c.mp4"))).not.toBe(first);
  });

  it("makes a 720p loop whose last frame flows into its first", async () => {
    const path = join(dir, "loop.mp4");
    const result = await engine.makeClip(
      input("loop", { size: "720p", loop: true, prompt: "orbit around the harbour" }),
    );
    expect(result).toMatchObject({ width: 1280, height: 720, motion: "drift", sound: "ocean" });
    const { duration, streams } = await probe(path);
    expect(Math.abs(duration - 5)).toBeLessThanOrEqual(0.05);
    expect(streams.find((s) => s.codec_type === "video")).toMatchObject({ width: 1280 });

    const wrap = await psnr(path, 124, 0);
    const step = await psnr(path, 62, 63);
    const across = await psnr(path, 0, 62);
    // The jump from the last frame back to the first is an ordinary step of the orbit…
    expect(wrap).toBeGreaterThan(step - 3);
    // …and far closer than frames half a loop apart.
    expect(wrap).toBeGreaterThan(across + 6);
  });

  it("refuses an image it cannot use with ImageError and leaves no output", async () => {
    const err = await engine
      .makeClip(input("refused", { imagePath: join(dir, "missing-pixels.txt") }))
      .catch((e: unknown) => e);
    // A missing file is the service's bug, not the caller's: a plain system error.
    expect(err).not.toBeInstanceOf(ImageError);
    expect(existsSync(join(dir, "refused.mp4"))).toBe(false);
  });

  it("stops ffmpeg mid-clip when the signal aborts and leaves no partial file", async () => {
    const controller = new AbortController();
    // Abort on ffmpeg's first progress report, so the kill lands mid-encode.
    const onProgress = (f: number) => {
      if (f > 0.1 && f < 1) controller.abort();
    };
    const run = engine.makeClip(input("aborted", { signal: controller.signal, onProgress }));
    await expect(run).rejects.toThrow(/abort/i);
    expect(existsSync(join(dir, "aborted.mp4"))).toBe(false);
    // Give a killed ffmpeg time to flush, then check nothing reappeared.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(join(dir, "aborted.mp4"))).toBe(false);
    expect((await readdir(dir)).filter((f) => f.startsWith(".aborted"))).toEqual([]);
  });
});

describe("ambient sound graphs", () => {
  const kinds: SoundKind[] = ["rain", "ocean", "water", "wind", "city", "forest", "fire", "room"];
  const prompts: Record<SoundKind, string> = {
    rain: "rain",
    ocean: "ocean",
    water: "river",
    wind: "wind",
    city: "city",
    forest: "forest",
    fire: "fire",
    room: "a portrait",
  };

  it.each(kinds)("%s renders exactly 5 s of audible stereo, once and as a loop", async (kind) => {
    for (const loop of [false, true]) {
      const plan = planClip({
        prompt: prompts[kind],
        size: "480p",
        loop,
        seed: 3,
        imageWidth: 100,
        imageHeight: 100,
      });
      expect(plan.sound.kind).toBe(kind);
      const res = await runFfmpeg([
        ...["-v", "info", "-filter_complex", `${plan.sound.graph};[aout]volumedetect[o]`],
        ...["-map", "[o]", "-f", "null", "-"],
      ]);
      expect(res.stderr).toMatch(/n_samples: 480000\b/);
      const mean = Number(/mean_volume: (-?[\d.]+) dB/.exec(res.stderr)?.[1]);
      const peak = Number(/max_volume: (-?[\d.]+) dB/.exec(res.stderr)?.[1]);
      expect(mean).toBeGreaterThan(-45);
      expect(peak).toBeLessThan(-1);
    }
  });
});
