/** Shared helpers of the clip tests: an app with the clips feature, images, a job system. */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import type { ImageClassifier } from "../../src/engines/moderation/image-classifier.js";
import { type ClipsFeatureOptions, clipsFeature } from "../../src/kinds/clips/kind.js";
import { silentLogger } from "../../src/logger.js";
import { type JobSystem, startJobSystem } from "../../src/workers/supervisor.js";
import { createTestApp, type TestApp } from "../app.js";

/** A classifier stand-in: allows everything unless the test flags the next images. */
export function stubClassifier() {
  const state = { refuse: null as null | "sexual" | "nudity", calls: 0 };
  const classifier: ImageClassifier = {
    async classify() {
      state.calls++;
      return state.refuse
        ? { allowed: false, code: state.refuse, scores: {} }
        : { allowed: true, scores: {} };
    },
  };
  return { state, classifier };
}

export interface ClipTestApp extends TestApp {
  classifier: ReturnType<typeof stubClassifier>["state"];
}

export async function createClipTestApp(opts: ClipsFeatureOptions = {}): Promise<ClipTestApp> {
  const stub = stubClassifier();
  let t: TestApp | undefined;
  const fetchVia: typeof fetch = (url, init) => {
    if (!t) throw new Error("app not ready");
    return t.fetchUrl(String(url), init);
  };
  t = await createTestApp({
    features: [clipsFeature({ classifier: stub.classifier, fetch: fetchVia, ...opts })],
  });
  return Object.assign(t, { classifier: stub.state });
}

/** A small photo-like PNG (a gradient with a disc), distinct per `hue`. */
export async function makeImage(width = 640, height = 480, hue = 0): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g"><stop offset="0" stop-color="hsl(${hue},70%,30%)"/>
    <stop offset="1" stop-color="hsl(${(hue + 120) % 360},70%,60%)"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/>
    <circle cx="${width / 2}" cy="${height / 2}" r="${height / 4}" fill="#eee"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
}

export function startClipWorkers(t: TestApp, workers = 1): Promise<JobSystem> {
  return startJobSystem({
    database: t.database,
    queues: t.features.flatMap((f) => f.queues ?? []),
    executors: t.features.flatMap((f) => f.executors ?? []),
    workers,
    leaseMs: 60_000,
    log: silentLogger,
    nodeId: "test",
  });
}

/** Polls GET /motion/jobs/{id} until the clip reaches one of `statuses` (real time). */
export async function waitForClip(
  t: TestApp,
  key: string,
  id: string,
  statuses: string[],
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.call("GET", `/motion/jobs/${id}`, { key });
    if (statuses.includes(res.body.job?.status)) return res.body.job;
    if (Date.now() > deadline) throw new Error(`clip ${id} stuck at ${res.body.job?.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Creates a clip through the API, uploads `image` and starts it; returns the start body. */
export async function createUploadStart(
  t: TestApp,
  key: string,
  image: Buffer,
  body: Record<string, unknown> = {},
) {
  const created = await t.call("POST", "/motion/jobs", {
    key,
    body: {
      prompt: "slow push in, rain",
      content_type: "image/jpeg",
      image_bytes: image.length,
      ...body,
    },
  });
  if (created.status !== 200)
    throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const put = await t.fetchUrl(created.body.upload_url, {
    method: "PUT",
    headers: created.body.upload_headers,
    body: new Uint8Array(image),
  });
  if (!put.ok) throw new Error(`upload: ${put.status} ${await put.text()}`);
  const started = await t.call("POST", `/motion/jobs/${created.body.job.id}/start`, { key });
  return { created: created.body, started };
}

const run = promisify(execFile);

export async function ffprobe(file: string) {
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "format=duration:stream=codec_type,codec_name,width,height",
    "-of",
    "json",
    file,
  ]);
  return JSON.parse(stdout) as {
    format: { duration: string };
    streams: { codec_type: string; codec_name: string; width?: number; height?: number }[];
  };
}

export async function saveTo(dir: string, name: string, res: Response) {
  const file = path.join(dir, name);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

export async function balances(t: TestApp, walletKey: string) {
  const res = await t.call("GET", "/wallet", { key: walletKey });
  return res.body.wallet.balance_cents as number;
}

/** The clip image is deleted right after the final status commits: wait briefly for it. */
export async function imageGone(t: TestApp, clipId: string, timeoutMs = 3_000) {
  const row = await t.deps.db
    .selectFrom("clips")
    .select("image_key")
    .where("id", "=", clipId)
    .executeTakeFirstOrThrow();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await t.deps.storage.head(row.image_key)) === null) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}
