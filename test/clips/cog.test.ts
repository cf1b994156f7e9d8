/**
 * Contract test of the remote clip engine through the clips feature: CLIP_ENGINE=cog against
 * the fake Cog server on 127.0.0.1, with signed webhooks delivered to POST /hooks/cog/clip on
 * a real HTTP server.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFfmpeg } from "../../src/engines/ffmpeg.js";
import type { Router } from "../../src/http/router.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { newWebhookSecret } from "../../src/standard-webhooks.js";
import type { JobSystem } from "../../src/workers/supervisor.js";
import { createTestApp, type TestApp } from "../app.js";
import { type FakeCogServer, type FakeModel, startFakeCogServer } from "../fakes/cog-server.js";
import {
  createUploadStart,
  makeImage,
  startClipWorkers,
  stubClassifier,
  waitForClip,
} from "./helpers.js";

const secret = newWebhookSecret();
let cog: FakeCogServer;
let t: TestApp;
let http: ServerType;
let jobs: JobSystem;

/** A stand-in clip model: the image held still for `seconds`, with a tone, at the size's height. */
const clipModel: FakeModel = async (ctx) => {
  const img = path.join(tmpdir(), `cog-clip-${ctx.id}.png`);
  await writeFile(img, Buffer.from(String(ctx.input.image).split(",")[1] ?? "", "base64"));
  const out = `${img}.mp4`;
  const height = Number(/^(\d+)p$/.exec(String(ctx.input.size))?.[1] ?? 480);
  await runFfmpeg([
    ...["-y", "-loop", "1", "-framerate", "10", "-i", img],
    ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050"],
    ...["-t", String(ctx.input.seconds), "-vf", `scale=-2:${height}`, "-pix_fmt", "yuv420p"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", out],
  ]);
  const bytes = await readFile(out);
  await Promise.all([rm(img, { force: true }), rm(out, { force: true })]);
  return ctx.serveFile(bytes, "video/mp4", "clip.mp4");
};

beforeAll(async () => {
  cog = await startFakeCogServer({ model: clipModel, token: "gpu-token", webhookSecret: secret });
  let app: Router | undefined;
  http = serve({ fetch: (req) => (app as Router).fetch(req), port: 0, hostname: "127.0.0.1" });
  await new Promise((r) => http.once("listening", r));
  const publicUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  let ref: TestApp | undefined;
  t = await createTestApp({
    env: {
      CLIP_ENGINE: "cog",
      CLIP_COG_URL: cog.url,
      CLIP_COG_TOKEN: "gpu-token",
      COG_WEBHOOK_SECRET: secret,
      // Slow polling: the webhook is what finishes the clip.
      CLIP_COG_POLL_MS: "20000",
    },
    platform: (p) => ({ ...p, publicUrl }),
    features: [
      clipsFeature({
        classifier: stubClassifier().classifier,
        fetch: (url, init) => (ref as TestApp).fetchUrl(String(url), init),
      }),
    ],
  });
  ref = t;
  app = t.app;
  jobs = await startClipWorkers(t);
});
afterAll(async () => {
  await jobs.stop(5_000);
  await t.close();
  await cog.close();
  await new Promise((r) => http.close(r));
});

describe("clips on a remote Cog engine", () => {
  it("sends image, prompt, size, loop, seed and seconds; the signed webhook completes the clip", async () => {
    const { key } = await t.newWallet(1000);
    const { created } = await createUploadStart(t, key, await makeImage(320, 240, 30), {
      seed: 1234,
      loop: true,
    });
    const started = Date.now();
    const clip = await waitForClip(t, key, created.job.id, ["done", "failed", "refused"]);
    expect(clip.status).toBe("done");
    expect(Date.now() - started).toBeLessThan(15_000);
    const calls = cog.stats.requests.filter((r) => r.method === "PUT");
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls[0]?.prefer).toMatch(/respond-async/);
    expect(cog.stats.webhookStatuses).toContain(200);
    const id = calls[0]?.path.split("/").pop() ?? "";
    expect(cog.prediction(id)?.input).toMatchObject({
      prompt: "slow push in, rain",
      size: "480p",
      loop: true,
      seed: 1234,
      seconds: 5,
    });
    expect(String(cog.prediction(id)?.input.image)).toMatch(/^data:image\/png;base64,/);
    const video = await t.fetchUrl(clip.video_url);
    expect((await video.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });

  it("refuses unsigned or wrongly signed webhooks", async () => {
    const body = JSON.stringify({ id: "p1", status: "succeeded", output: "x" });
    const unsigned = await t.call("POST", "/hooks/cog/clip", { body });
    expect(unsigned.status).toBe(401);
    const forged = await t.call("POST", "/hooks/cog/clip", {
      body,
      headers: {
        "webhook-id": "msg_1",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAA",
      },
    });
    expect(forged.status).toBe(401);
    expect((await t.call("POST", "/hooks/cog/other", { body })).status).toBe(404);
  });
});
