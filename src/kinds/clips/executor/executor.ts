import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../../../config.js";
import { createFfmpegClipEngine } from "../../../engines/clip/engine.js";
import { ImageError, normaliseImage } from "../../../engines/clip/image.js";
import { createCogClipEngine } from "../../../engines/cog/cog-engines.js";
import { type CogHookTarget, PredictionWaiter } from "../../../engines/cog/webhook.js";
import type { ClipEngine } from "../../../engines/contracts.js";
import {
  createNsfwjsClassifier,
  type ImageClassifier,
} from "../../../engines/moderation/image-classifier.js";
import {
  type ExecuteContext,
  type Executor,
  WorkError,
  type WorkItem,
} from "../../../jobs/work.js";
import type { Signer } from "../../../signing.js";
import { uploadOutput } from "../../../workers/transfer.js";
import { ClipWorkParams, clipJobs } from "../services/definition.js";

type ClipItem = WorkItem<ClipWorkParams>;

/** The clip executor's engine, image classifier and fetch. */
export interface ClipExecutorOptions {
  engine: ClipEngine;
  classifier: ImageClassifier;
  /** How inputs are fetched and outputs sent; tests route kinora URLs in-process. */
  fetchImpl?: typeof fetch;
}

const REFUSED_DETAIL: Record<string, string> = {
  sexual: "The image shows sexual content, which clips do not allow; the price was refunded.",
  nudity: "The image shows nudity, which clips do not allow; the price was refunded.",
};

const retry = (message: string) => new WorkError({ kind: "retry", message });

async function download(
  item: ClipItem,
  dest: string,
  fetchImpl: typeof fetch,
  signal: AbortSignal,
) {
  const maxBytes = item.params.maxImageBytes;
  const res = await fetchImpl(item.inputUrl, { signal });
  if (!res.ok || !res.body) {
    throw res.status === 404
      ? new WorkError({
          kind: "final",
          message: "The clip's image is no longer stored; the price was refunded.",
        })
      : retry(`Could not read the clip's image (HTTP ${res.status}); the clip will be retried.`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value: chunk } = await reader.read();
    if (done) break;
    total += chunk.length;
    if (total > maxBytes) {
      await reader.cancel();
      throw new WorkError({
        kind: "final",
        message: `The image is larger than ${maxBytes} bytes; upload a smaller one.`,
      });
    }
    chunks.push(Buffer.from(chunk));
  }
  await writeFile(dest, Buffer.concat(chunks));
}

async function upload(item: ClipItem, file: string, fetchImpl: typeof fetch, signal: AbortSignal) {
  try {
    return await uploadOutput(fetchImpl, item, file, "video/mp4", signal);
  } catch (err) {
    if (signal.aborted) throw err;
    throw retry(
      `Could not store the finished clip (${err instanceof Error ? err.message : String(err)}); the clip will be retried.`,
    );
  }
}

/** The clip kind's executor: fetch the image, judge it, make the clip, store it. */
export function createClipExecutor(opts: ClipExecutorOptions): Executor<ClipWorkParams> {
  const fetchImpl = opts.fetchImpl ?? fetch;
  return {
    kind: clipJobs.kind,
    params: ClipWorkParams,
    unmetNeeds: () => [
      ...(opts.engine.unmetNeeds?.() ?? []),
      ...(opts.classifier.unmetNeeds?.() ?? []),
    ],
    async execute(item: ClipItem, ctx: ExecuteContext) {
      const source = path.join(ctx.workDir, "source");
      const frame = path.join(ctx.workDir, "frame.png");
      const output = path.join(ctx.workDir, "clip.mp4");
      await download(item, source, fetchImpl, ctx.signal);
      ctx.progress(0.05);
      try {
        await normaliseImage(source, frame, { maxInputBytes: item.params.maxImageBytes });
      } catch (err) {
        if (err instanceof ImageError) throw new WorkError({ kind: "final", message: err.message });
        throw err;
      }
      const verdict = await opts.classifier.classify(await readFile(frame));
      if (!verdict.allowed) {
        const code = verdict.code ?? "sexual";
        throw new WorkError({
          kind: "refused",
          code,
          message: REFUSED_DETAIL[code] ?? REFUSED_DETAIL.sexual ?? "",
        });
      }
      ctx.progress(0.1);
      const made = await makeClip(opts.engine, item, frame, output, ctx);
      const outputBytes = await upload(item, output, fetchImpl, ctx.signal);
      return { outputBytes, meta: { engine: opts.engine.name, ...made } };
    },
  };
}

async function makeClip(
  engine: ClipExecutorOptions["engine"],
  item: ClipItem,
  frame: string,
  output: string,
  ctx: ExecuteContext,
) {
  const p = item.params;
  try {
    return await engine.makeClip({
      imagePath: frame,
      outputPath: output,
      prompt: p.prompt,
      size: p.size,
      loop: p.loop,
      seed: p.seed,
      signal: ctx.signal,
      onProgress: (f) => ctx.progress(0.1 + 0.85 * f),
    });
  } catch (err) {
    if (err instanceof ImageError) throw new WorkError({ kind: "final", message: err.message });
    throw err;
  }
}

/**
 * The engine the environment asks for: CLIP_ENGINE=ffmpeg (default, CPU in the worker) or
 * cog (CLIP_COG_URL, CLIP_COG_TOKEN; webhooks at POST /hooks/cog/clip when COG_WEBHOOK_SECRET
 * and a public URL are set, else polling).
 */
interface ClipEngineChoice {
  engine: ClipExecutorOptions["engine"];
  /** Set for a remote engine with webhooks: the target of POST /hooks/cog/clip. */
  hook?: CogHookTarget;
}

/**
 * The clip engine the configuration asks for. Webhooks need the server's public URL and its
 * signer (each prediction's URL token is signed with it); a worker without them polls.
 */
export function clipEngineFromConfig(
  config: Pick<Config, "engines" | "publicUrl">,
  server: { publicUrl?: string; signer: Signer } | undefined,
): ClipEngineChoice {
  const e = config.engines.clip;
  if (e.kind === "ffmpeg") return { engine: createFfmpegClipEngine() };
  const base = server?.publicUrl ?? config.publicUrl;
  const tokens = server?.signer;
  const waiter = e.webhookSecret && base && tokens ? new PredictionWaiter() : undefined;
  const engine = createCogClipEngine({
    name: "cog-clip",
    baseUrl: e.url,
    token: e.token,
    webhookUrl: waiter ? `${base}/hooks/cog/clip` : undefined,
    webhookSecret: waiter ? e.webhookSecret : undefined,
    webhookTokens: waiter ? tokens : undefined,
    waiter,
    timeoutMs: e.timeoutMs,
    pollIntervalMs: e.pollMs,
  });
  return {
    engine,
    hook: waiter && tokens ? { waiter, secret: e.webhookSecret, tokens } : undefined,
  };
}

/** For `kinora worker`: the configured engine (polling, no webhooks) and the nsfwjs classifier. */
export function clipExecutorFromConfig(
  config: Pick<Config, "engines">,
  opts: { fetch?: (url: string, init?: RequestInit) => Promise<Response> } = {},
): Executor<ClipWorkParams> {
  const { engine } = clipEngineFromConfig(
    { engines: config.engines, publicUrl: undefined },
    undefined,
  );
  return createClipExecutor({
    engine,
    classifier: createNsfwjsClassifier(),
    // cast: the seam's FetchLike is fetch's own signature, narrowed; the engine takes fetch's type
    fetchImpl: opts.fetch as typeof fetch | undefined,
  });
}
