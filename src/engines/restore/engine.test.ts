import { existsSync } from "node:fs";
import { open, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, pipeTo, summarise, tempDir } from "../../../test/restore/media.js";
import { ffprobeJson, runFfmpeg } from "../ffmpeg.js";
import { scanDurationSec } from "./duration.js";
import { CORRUPT_MESSAGE } from "./errors.js";
import { buildRestoreArgs, createFfmpegRestoreEngine, MediaError } from "./index.js";
import type { AudioReading } from "./probe.js";
import { measureQuality } from "./quality.js";

const engine = createFfmpegRestoreEngine({ threads: 2 });
let dir: string;
let cleanup: () => Promise<void>;
const path = (name: string) => join(dir, name);

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  const video = "testsrc2=s=320x240:r=25";
  await Promise.all([
    generate(path("av.mp4"), { video, seconds: 2, audio: "sine=f=440:sample_rate=44100" }),
    generate(path("silent.mp4"), { video, seconds: 1.5 }),
    // x264 would round 321x241; FFV1 keeps the odd size.
    generate(path("odd.mkv"), {
      video,
      seconds: 1.5,
      vf: "scale=321:241",
      codec: ["-c:v", "ffv1"],
    }),
    // A phone clip: an upright portrait picture stored landscape with a rotation flag.
    generate(path("portrait.mp4"), { video: "testsrc2=s=240x320:r=25", seconds: 1.5 }),
    generate(path("stored.mp4"), {
      video: "testsrc2=s=240x320:r=25",
      seconds: 1.5,
      vf: "transpose=clock",
    }),
  ]);
  await runFfmpeg([
    "-y",
    "-i",
    path("stored.mp4"),
    "-c",
    "copy",
    "-metadata:s:v:0",
    "rotate=90",
    path("phone.mp4"),
  ]);
  await runFfmpeg([
    "-y",
    "-f",
    "lavfi",
    "-t",
    "1",
    "-i",
    "sine",
    "-c:a",
    "aac",
    path("audio-only.m4a"),
  ]);
  await writeFile(
    path("garbage.mp4"),
    Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7919) % 251)),
  );
  // The start of an MP4 whose index (moov) sits at the end: nothing decodable survives.
  await writeFile(path("truncated.mp4"), (await readFile(path("av.mp4"))).subarray(0, 6000));
  // Index first, then the media cut in half: the header still promises 4 s.
  await generate(path("long.mp4"), { video, seconds: 4, extra: ["-movflags", "+faststart"] });
  const long = await readFile(path("long.mp4"));
  await writeFile(path("cut.mp4"), long.subarray(0, Math.floor(long.length / 2)));
  // The same sound put half a second after the picture starts.
  await runFfmpeg(
    ["-y", "-i", path("av.mp4"), "-itsoffset", "0.5", "-i", path("av.mp4")].concat([
      "-map",
      "0:v",
      "-map",
      "1:a",
      "-c",
      "copy",
      path("late-sound.mp4"),
    ]),
  );
  // A sound track whose header is there but whose packets are not.
  await runFfmpeg(
    ["-y", "-i", path("av.mp4"), "-map", "0:v", "-map", "0:a", "-c", "copy"].concat([
      "-bsf:a",
      "noise=drop=1",
      path("empty-sound.mkv"),
    ]),
  );
  // Matroska written to a pipe has no duration in its header.
  await pipeTo(path("piped.mkv"), ["-i", path("av.mp4"), "-c", "copy", "-f", "matroska"]);
}, 60_000);

afterAll(() => cleanup());

/**
 * What `prepare` reads, with the sound's analysis held back until the picture's encode reports
 * progress (as a long track's loudness pass would be), and the progress listener that lets it
 * go: the restore then encodes the sound beside the picture and joins the two files.
 */
async function soundAfterPicture(inputPath: string) {
  const reading = await engine.prepare({ inputPath, quality: "faithful" });
  let release: () => void = () => {};
  const encoding = new Promise<void>((resolve) => {
    release = resolve;
  });
  const heardLater = Promise.all([reading.audio as Promise<AudioReading>, encoding]).then(
    ([heard]) => heard,
  );
  // Past the probe's 5 %, the picture's pass is under way.
  const onProgress = (fraction: number) => fraction > 0.05 && release();
  return { prepared: { ...reading, audio: heardLater }, onProgress };
}

/** Whether the MP4 index comes before the media data (what +faststart guarantees). */
async function moovFirst(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  const { buffer } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
  await handle.close();
  const moov = buffer.indexOf("moov");
  return moov >= 0 && moov < buffer.indexOf("mdat");
}

describe("restore", () => {
  it("faithful: H.264 yuv420p + AAC MP4 at the source size, progress to 1", async () => {
    const seen: number[] = [];
    const out = path("faithful.mp4");
    const result = await engine.restore({
      inputPath: path("av.mp4"),
      outputPath: out,
      quality: "faithful",
      onProgress: (f) => seen.push(f),
    });
    const s = await summarise(out);
    expect(s.video).toMatchObject({ codec: "h264", pixFmt: "yuv420p", width: 320, height: 240 });
    expect(s.audio).toMatchObject({ codec: "aac", sampleRate: 48000, channels: 1 });
    expect(await moovFirst(out)).toBe(true);
    expect(result).toMatchObject({ width: 320, height: 240 });
    expect(result.durationSec).toBeGreaterThan(1.9);
    expect(result.durationSec).toBeLessThan(2.2);
    expect(seen[0]).toBe(0);
    expect(seen.at(-1)).toBe(1);
    expect(seen.every((f, i) => i === 0 || f >= (seen[i - 1] as number))).toBe(true);
    for (const part of ["partial", "partial.video", "partial.audio"]) {
      expect(existsSync(`${out}.${part}.mp4`)).toBe(false);
    }
  });

  it("reports the length the packets hold, not a header that promises more", async () => {
    // The worker's measurement refuses a file cut off like this one; the engine on its own
    // still restores what is there.
    await expect(engine.measureDurationSec(path("cut.mp4"))).rejects.toThrow(/cut off/);
    const scanned = await scanDurationSec(path("cut.mp4"));
    expect(scanned).toBeLessThan(3);
    const own = await engine.restore({
      inputPath: path("cut.mp4"),
      outputPath: path("cut-out.mp4"),
      quality: "faithful",
    });
    // Where the decode of every packet ended; a scan copies a last partial packet too.
    expect(Math.abs(own.durationSec - scanned)).toBeLessThan(0.2);
    // A caller that scanned hands its length over, and it is what the result reports.
    const given = await engine.restore({
      inputPath: path("cut.mp4"),
      outputPath: path("cut-out2.mp4"),
      quality: "faithful",
      durationSec: scanned,
    });
    expect(given.durationSec).toBe(scanned);
  });

  it("measures a file whose header has no length, with progress to 1", async () => {
    const seen: number[] = [];
    // The sound held back so the picture's pass runs alone: its last report then says where
    // the picture ended against the scan's length, which the sound makes a little longer. (A
    // pass with the sound along ends at that length, and a 2 s encode may report nothing
    // before its end, so only the picture alone tells, whatever the machine's speed.)
    const { prepared, onProgress } = await soundAfterPicture(path("piped.mkv"));
    const result = await engine.restore({
      inputPath: path("piped.mkv"),
      outputPath: path("piped-out.mp4"),
      quality: "faithful",
      prepared,
      onProgress: (f) => {
        seen.push(f);
        onProgress(f);
      },
    });
    expect(result.durationSec).toBeGreaterThan(1.9);
    expect(result.durationSec).toBeLessThan(2.2);
    // Measured against a length: a fraction short of 99 %, then 99 % when the pass ended.
    expect(seen.some((f) => f > 0.5 && f < 0.99)).toBe(true);
    expect(seen).toContain(0.99);
    expect(seen.at(-1)).toBe(1);
  });

  it("enhanced: doubles a small picture's size", async () => {
    const result = await engine.restore({
      inputPath: path("av.mp4"),
      outputPath: path("enhanced.mp4"),
      quality: "enhanced",
    });
    const s = await summarise(path("enhanced.mp4"));
    expect(s.video).toMatchObject({ codec: "h264", pixFmt: "yuv420p", width: 640, height: 480 });
    expect(s.audio?.codec).toBe("aac");
    // Resized (and converted, were it HD) by zscale at full chroma resolution, not sharpened.
    expect(result.plan.video.scale?.filter).toBe("zscale");
  });

  it("joins a sound measured after the picture where the one-process chain puts it, late start included", async () => {
    const inputPath = path("late-sound.mp4");
    const out = path("late-out.mp4");
    const { plan, soundPass } = await engine.restore({
      inputPath,
      outputPath: out,
      quality: "faithful",
      ...(await soundAfterPicture(inputPath)),
    });
    expect(soundPass).toBe("joined");
    const bare = path("late-bare.mp4");
    await runFfmpeg(buildRestoreArgs(plan, inputPath, bare));
    const timing = async (file: string) => {
      const probe = await ffprobeJson(["-show_streams", "-show_packets", file]);
      const streams = probe.streams as Array<Record<string, unknown>>;
      const packets = probe.packets as Array<Record<string, unknown>>;
      return {
        starts: streams.map((s) => [s.codec_type, s.start_time]),
        firstAudio: packets
          .filter((p) => p.codec_type === "audio")
          .slice(0, 3)
          .map((p) => p.pts),
      };
    };
    const ours = await timing(out);
    expect(ours).toEqual(await timing(bare));
    expect(Number(ours.starts.find(([type]) => type === "audio")?.[1])).toBeGreaterThan(0.4);
    expect(await moovFirst(out)).toBe(true);
  });

  it("encodes a sound measured in time in the picture's own pass: the one-process chain", async () => {
    const inputPath = path("late-sound.mp4");
    const reading = await engine.prepare({ inputPath, quality: "faithful" });
    await reading.audio;
    const out = path("along-out.mp4");
    const { plan, soundPass } = await engine.restore({
      inputPath,
      outputPath: out,
      quality: "faithful",
      prepared: reading,
    });
    expect(soundPass).toBe("with-picture");
    const bare = path("along-bare.mp4");
    await runFfmpeg(buildRestoreArgs(plan, inputPath, bare));
    const streams = async (file: string) => {
      const probe = await ffprobeJson(["-show_streams", file]);
      const list = probe.streams as Array<Record<string, unknown>>;
      return list.map((s) => [s.codec_type, s.start_time, s.duration, s.nb_frames]);
    };
    expect(await streams(out)).toEqual(await streams(bare));
    expect(await moovFirst(out)).toBe(true);
    for (const part of ["partial", "partial.video", "partial.audio"]) {
      expect(existsSync(`${out}.${part}.mp4`)).toBe(false);
    }
  });

  it("restores from what prepare read, deciding exactly what a restore that probes decides", async () => {
    const reading = await engine.prepare({ inputPath: path("av.mp4"), quality: "enhanced" });
    // The picture is read; the sound's loudness pass may still be running, for the restore.
    expect(reading.audio).toBeInstanceOf(Promise);
    const prepared = await engine.restore({
      inputPath: path("av.mp4"),
      outputPath: path("prepared-out.mp4"),
      quality: "enhanced",
      prepared: reading,
    });
    const probed = await engine.restore({
      inputPath: path("av.mp4"),
      outputPath: path("probed-out.mp4"),
      quality: "enhanced",
    });
    expect(prepared.plan.measured.loudness).not.toBeNull();
    expect(prepared.plan).toEqual(probed.plan);
    expect((await summarise(path("prepared-out.mp4"))).audio?.codec).toBe("aac");
  });

  it("restores a sound track without a single packet to a picture-only MP4, joined or not", async () => {
    const inputPath = path("empty-sound.mkv");
    for (const joined of [false, true]) {
      const out = path(`empty-sound-${joined}.mp4`);
      const result = await engine.restore({
        inputPath,
        outputPath: out,
        quality: "faithful",
        ...(joined ? await soundAfterPicture(inputPath) : {}),
      });
      if (joined) expect(result.soundPass).toBe("joined");
      const s = await summarise(out);
      expect(s.video?.codec).toBe("h264");
      expect(s.audio).toBeUndefined();
    }
  });

  it("restores a file without audio to a valid video-only MP4", async () => {
    const result = await engine.restore({
      inputPath: path("silent.mp4"),
      outputPath: path("silent-out.mp4"),
      quality: "faithful",
    });
    const s = await summarise(path("silent-out.mp4"));
    expect(s.video?.codec).toBe("h264");
    expect(s.audio).toBeUndefined();
    expect(result.plan.audio).toBeNull();
  });

  it("makes odd sizes even: cropped when faithful, scaled when enhanced", async () => {
    await engine.restore({
      inputPath: path("odd.mkv"),
      outputPath: path("odd-f.mp4"),
      quality: "faithful",
    });
    await engine.restore({
      inputPath: path("odd.mkv"),
      outputPath: path("odd-e.mp4"),
      quality: "enhanced",
    });
    expect((await summarise(path("odd-f.mp4"))).video).toMatchObject({ width: 320, height: 240 });
    expect((await summarise(path("odd-e.mp4"))).video).toMatchObject({ width: 642, height: 482 });
  });

  it("turns rotated phone video upright and clears the rotation flag", async () => {
    expect((await summarise(path("phone.mp4"))).rotation).not.toBe(0);
    const out = path("phone-out.mp4");
    await engine.restore({ inputPath: path("phone.mp4"), outputPath: out, quality: "faithful" });
    const s = await summarise(out);
    expect(s.video).toMatchObject({ width: 240, height: 320 });
    expect(s.rotation).toBe(0);
    // Upright means it matches the portrait original, not a sideways or upside-down copy.
    const q = await measureQuality(path("portrait.mp4"), out);
    expect(q.psnr).toBeGreaterThan(28);
  });

  it("refuses unreadable files with a MediaError the customer can read", async () => {
    for (const name of ["garbage.mp4", "truncated.mp4"]) {
      const err = await engine
        .restore({
          inputPath: path(name),
          outputPath: path(`${name}.out.mp4`),
          quality: "faithful",
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MediaError);
      expect((err as MediaError).code).toBe("corrupt");
      expect((err as MediaError).message).toBe(CORRUPT_MESSAGE);
      expect((err as MediaError).message).not.toMatch(/ffmpeg|ffprobe|moov|codec/i);
      await expect(engine.measureDurationSec(path(name))).rejects.toBeInstanceOf(MediaError);
    }
  });

  it("refuses an audio-only file as having no video", async () => {
    const err = await engine.measureDurationSec(path("audio-only.m4a")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect((err as MediaError).code).toBe("no_video");
  });

  it("stops ffmpeg and leaves no file behind when aborted", async () => {
    const controller = new AbortController();
    const out = path("aborted.mp4");
    const started = Date.now();
    const pending = engine.restore({
      inputPath: path("av.mp4"),
      outputPath: out,
      quality: "enhanced_max",
      signal: controller.signal,
      // Abort once the main pass is running, so there is an ffmpeg to kill.
      onProgress: (f) => f > 0 && controller.abort(new Error("cancelled by test")),
    });
    await expect(pending).rejects.toThrow("cancelled by test");
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(existsSync(out)).toBe(false);
    for (const part of ["partial", "partial.video", "partial.audio"]) {
      expect(existsSync(`${out}.${part}.mp4`)).toBe(false);
    }
  });
});
