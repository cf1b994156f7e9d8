import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeCogOptions,
  startFakeCogServer,
  startWebhookReceiver,
} from "../../../test/fakes/cog-server.js";
import type { ClipSize } from "../../kinds/clips/rules/rules.js";
import { newWebhookSecret } from "../../standard-webhooks.js";
import { runFfmpeg } from "../ffmpeg.js";
import { createCogClipEngine, createCogRestoreEngine } from "./cog-engines.js";
import { PredictionWaiter } from "./webhook.js";

let dir = "";
let inputVideo = "";
let inputImage = "";
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cog-engines-"));
  inputVideo = join(dir, "in.mp4");
  inputImage = join(dir, "in.png");
  await runFfmpeg([
    ...["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", inputVideo],
  ]);
  await runFfmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120", "-frames:v", "1", inputImage]);
});

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await rm(dir, { recursive: true, force: true });
});

/** Writes a data URL's bytes to a scratch file for ffmpeg. */
async function fromDataUrl(ref: unknown, name: string): Promise<string> {
  const path = join(dir, `${Math.random().toString(36).slice(2)}-${name}`);
  await writeFile(path, Buffer.from(String(ref).split(",")[1] ?? "", "base64"));
  return path;
}

/** A "restoration" model: upscales the input 2× with ffmpeg and returns a data URL. */
const restoreModel: FakeCogOptions["model"] = async (ctx) => {
  const src = await fromDataUrl(ctx.input.video, "src.mp4");
  const out = `${src}.out.mp4`;
  ctx.log("restoring 50%");
  await runFfmpeg(
    ["-y", "-i", src, "-vf", "scale=iw*2:ih*2", "-c:v", "libx264", "-preset", "ultrafast", out],
    { signal: ctx.signal },
  );
  return `data:video/mp4;base64,${(await readFile(out)).toString("base64")}`;
};

/** A clip model: loops the image for `seconds` with a tone, served from its own URL. */
const clipModel: FakeCogOptions["model"] = async (ctx) => {
  const img = await fromDataUrl(ctx.input.image, "img.png");
  const out = `${img}.mp4`;
  const height = Number(/^(\d+)p$/.exec(String(ctx.input.size))?.[1] ?? 144);
  const seconds = String(ctx.input.seconds);
  await runFfmpeg([
    ...["-y", "-loop", "1", "-framerate", "10", "-i", img],
    ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050"],
    ...["-t", seconds, "-vf", `scale=-2:${height}`, "-pix_fmt", "yuv420p"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", out],
  ]);
  return [ctx.serveFile(await readFile(out), "video/mp4", "clip.mp4")];
};

async function fake(opts: FakeCogOptions) {
  const server = await startFakeCogServer(opts);
  closers.push(server.close);
  return server;
}

describe("Cog restore engine", () => {
  it("restores a real MP4 remotely and reports the output's real size and duration", async () => {
    const server = await fake({ model: restoreModel, token: "gpu-token" });
    const engine = createCogRestoreEngine({
      baseUrl: server.url,
      token: "gpu-token",
      timeoutMs: 30_000,
      pollIntervalMs: 25,
      measureDurationSec: async () => 1, // the input is a 1 s test pattern
    });
    const progress: number[] = [];
    const outputPath = join(dir, "restored.mp4");
    const result = await engine.restore({
      inputPath: inputVideo,
      outputPath,
      quality: "faithful",
      onProgress: (f) => progress.push(f),
    });
    expect(result).toMatchObject({ width: 320, height: 240, durationSec: 1 });
    expect(result.plan.outputDurationSec).toBeGreaterThan(0.8);
    expect(result.plan.outputDurationSec).toBeLessThan(1.3);
    expect(result.plan).toMatchObject({ version: 1, engine: "cog", quality: "faithful" });
    expect(result.plan.predictTimeSec).toBeGreaterThan(0);
    expect(result.elapsedMs).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(1);
    expect((await readFile(outputPath)).subarray(4, 8).toString()).toBe("ftyp");
    await expect(engine.measureDurationSec(inputVideo)).resolves.toBe(1);
    const sent = server.prediction(result.plan.predictionId);
    expect(String(sent?.input.video)).toMatch(/^data:video\/mp4;base64,/);
  });

  it("sends the caller's URL instead of the file when there is one", async () => {
    let seen: unknown;
    const server = await fake({
      model: async (ctx) => {
        seen = ctx.input.video;
        return restoreModel({
          ...ctx,
          input: {
            video: `data:video/mp4;base64,${(await readFile(inputVideo)).toString("base64")}`,
          },
        });
      },
    });
    const engine = createCogRestoreEngine({
      baseUrl: server.url,
      timeoutMs: 30_000,
      pollIntervalMs: 25,
      measureDurationSec: async () => 1,
    });
    const url = "https://storage.example.com/in.mp4?sig=abc";
    await engine.restore({
      inputPath: inputVideo,
      inputUrl: url,
      outputPath: join(dir, "u.mp4"),
      quality: "faithful",
    });
    expect(seen).toBe(url);
  });

  it("sends the customer's fade only when one was said", async () => {
    const sent: Record<string, unknown>[] = [];
    const server = await fake({
      model: async (ctx) => {
        sent.push({ ...ctx.input });
        return restoreModel({
          ...ctx,
          input: {
            video: `data:video/mp4;base64,${(await readFile(inputVideo)).toString("base64")}`,
          },
        });
      },
    });
    const engine = createCogRestoreEngine({
      baseUrl: server.url,
      timeoutMs: 30_000,
      pollIntervalMs: 25,
      measureDurationSec: async () => 1,
    });
    const url = "https://storage.example.com/in.mp4?sig=abc";
    const job = { inputPath: inputVideo, inputUrl: url, quality: "enhanced" as const };
    await engine.restore({ ...job, outputPath: join(dir, "f1.mp4"), fade: "faded" });
    await engine.restore({ ...job, outputPath: join(dir, "f2.mp4"), fade: "auto" });
    expect(sent[0]).toMatchObject({ quality: "enhanced", fade: "faded" });
    expect(sent[1]).not.toHaveProperty("fade");
  });

  it("refuses to inline a file over the limit when there is no URL", async () => {
    const server = await fake({ model: restoreModel });
    const engine = createCogRestoreEngine({
      baseUrl: server.url,
      timeoutMs: 5_000,
      pollIntervalMs: 25,
      maxInlineBytes: 1000,
      measureDurationSec: async () => 1,
    });
    await expect(
      engine.restore({
        inputPath: inputVideo,
        outputPath: join(dir, "x.mp4"),
        quality: "faithful",
      }),
    ).rejects.toThrow(/needs a URL/);
    expect(server.stats.runsStarted).toBe(0);
  });

  it("refuses an output much shorter than the input", async () => {
    const server = await fake({ model: restoreModel });
    const engine = createCogRestoreEngine({
      baseUrl: server.url,
      timeoutMs: 30_000,
      pollIntervalMs: 25,
      measureDurationSec: async () => 3,
    });
    await expect(
      engine.restore({
        inputPath: inputVideo,
        outputPath: join(dir, "s.mp4"),
        quality: "faithful",
      }),
    ).rejects.toThrow(/returned 1\.0 s of video for a 3\.0 s input/);
    await expect(readFile(join(dir, "s.mp4"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("surfaces a remote failure as an error", async () => {
    const server = await fake({ model: restoreModel, failWith: "model crashed" });
    const engine = createCogRestoreEngine({
      baseUrl: server.url,
      timeoutMs: 30_000,
      pollIntervalMs: 25,
      measureDurationSec: async () => 1,
    });
    await expect(
      engine.restore({
        inputPath: inputVideo,
        outputPath: join(dir, "f.mp4"),
        quality: "faithful",
      }),
    ).rejects.toMatchObject({ code: "failed", message: expect.stringContaining("model crashed") });
  });

  it("refuses a webhook URL without a secret", () => {
    expect(() =>
      createCogRestoreEngine({
        baseUrl: "http://127.0.0.1:9",
        webhookUrl: "https://kinora.example.com/webhooks/cog",
        timeoutMs: 1000,
        pollIntervalMs: 100,
        measureDurationSec: async () => 1,
      }),
    ).toThrow(/webhookSecret/);
  });
});

describe("Cog clip engine", () => {
  it("makes a clip over signed webhooks from a server that cannot be polled", async () => {
    const secret = newWebhookSecret();
    const server = await fake({ model: clipModel, webhookSecret: secret, supportsGet: false });
    const waiter = new PredictionWaiter();
    const hook = await startWebhookReceiver(waiter, secret);
    closers.push(hook.close);
    const engine = createCogClipEngine({
      baseUrl: server.url,
      webhookUrl: hook.url,
      webhookSecret: secret,
      waiter,
      timeoutMs: 30_000,
      pollIntervalMs: 25,
    });
    const result = await engine.makeClip({
      imagePath: inputImage,
      outputPath: join(dir, "clip.mp4"),
      prompt: "waves at dusk",
      // Not a size kinora sells: the fake model renders whatever it is asked, and tiny is fast.
      size: "144p" as ClipSize,
      loop: true,
      seed: 42,
    });
    expect(result).toMatchObject({ width: 192, height: 144, fps: 10, sound: "remote model" });
    expect(result.durationSec).toBeGreaterThan(4.5);
    expect(result.durationSec).toBeLessThan(5.5);
    expect(hook.statuses.every((s) => s === 200)).toBe(true);
    const [id] = [
      ...new Set(server.stats.requests.filter((r) => r.method === "PUT").map((r) => r.path)),
    ];
    const input = server.prediction(id!.split("/").at(-1)!)?.input;
    expect(input).toMatchObject({
      prompt: "waves at dusk",
      size: "144p",
      loop: true,
      seed: 42,
      seconds: 5,
    });
    expect(String(input?.image)).toMatch(/^data:image\/png;base64,/);
  });
});
