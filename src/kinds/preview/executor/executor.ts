/**
 * The preview Executor: get the video (the upload, or the caller's video_url under the address
 * guard), measure its real length (refused past the longest restore, as a restore is), find its
 * most damaged few seconds, cut them out, restore them at every quality with the ffmpeg restore
 * engine, and store each clip with its stills; the plan of each quality comes back in words.
 */
import path from "node:path";
import type { Config } from "../../../config.js";
import {
  createFfmpegRestoreEngine,
  MediaError,
  type RestoreEngine,
} from "../../../engines/restore/index.js";
import {
  type ExecuteContext,
  type Executor,
  WorkError,
  type WorkItem,
} from "../../../jobs/work.js";
import { ImageFetchError } from "../../../net/safe-fetch.js";
import { fetchPublicToFile } from "../../../net/safe-stream.js";
import { downloadInput, type FetchLike, uploadOutput } from "../../../workers/transfer.js";
import {
  PREVIEW_EXCERPT_MAX_SEC,
  PREVIEW_MESSAGES,
  PREVIEW_MIN_VIDEO_SEC,
  PREVIEW_QUALITIES,
} from "../rules/transitions.js";
import {
  PREVIEW_FETCH_MAX_BYTES,
  type PreviewFile,
  type PreviewResult,
  PreviewWorkParams,
} from "../services/definition.js";
import { cutExcerpt, worstWindow } from "./excerpt.js";
import { makeStills } from "./stills.js";
import { planWords } from "./words.js";

/** The input's fault ends the preview with the engine's sentence. */
const asFinal = (err: unknown) =>
  err instanceof MediaError
    ? new WorkError({ kind: "final", message: err.message, code: err.code }, err.detail)
    : err;

/** How a preview's executor reaches the world (tests: in-process URLs, a loopback server). */
export interface PreviewExecutorOptions {
  /** The longest video taken: the server's longest restore (RESTORE_MAX_DURATION_SEC). */
  maxDurationSec: number;
  /** ALLOW_LOOPBACK_URLS: a video_url on this machine may be fetched (development). */
  allowLoopback?: boolean;
  fetch?: FetchLike;
}

/** The video in the scratch folder: downloaded from storage, or fetched from the caller's URL. */
async function getInput(
  item: WorkItem<PreviewWorkParams>,
  ctx: ExecuteContext,
  dest: string,
  opts: PreviewExecutorOptions & { fetch: FetchLike },
): Promise<void> {
  const url = item.params.sourceUrl;
  if (url === null) {
    await downloadInput(opts.fetch, item.inputUrl, dest, item.params.sizeBytes, ctx.signal);
    return;
  }
  await fetchPublicToFile(url, dest, {
    maxBytes: PREVIEW_FETCH_MAX_BYTES,
    timeoutMs: 30 * 60_000,
    idleMs: 60_000,
    maxRedirects: 3,
    field: "video_url",
    noun: "video",
    accept: "video/*, application/octet-stream;q=0.5",
    acceptType: (type) =>
      type.startsWith("video/") || type === "application/octet-stream" || type === ""
        ? type || "application/octet-stream"
        : null,
    typeHint: "a video (video/*)",
    signal: ctx.signal,
    allowLoopback: opts.allowLoopback,
  }).catch((err) => {
    if (err instanceof ImageFetchError) {
      throw new WorkError({ kind: "final", message: err.message, code: "video_fetch_failed" });
    }
    throw err;
  });
}

/** The real length, refused outside what a restore takes. */
async function checkedLength(
  engine: RestoreEngine,
  inputPath: string,
  maxSec: number,
  signal: AbortSignal,
): Promise<number> {
  const realSec = await engine.measureDurationSec(inputPath, signal);
  if (realSec > maxSec) {
    throw new WorkError({ kind: "too_long", message: PREVIEW_MESSAGES.tooLong(realSec, maxSec) });
  }
  if (realSec < PREVIEW_MIN_VIDEO_SEC) {
    throw new WorkError({
      kind: "final",
      message: PREVIEW_MESSAGES.tooShort(realSec),
      code: "too_short",
    });
  }
  return realSec;
}

/** Restores the excerpt at every quality and makes the stills; the files made, by name. */
async function restoreEvery(
  engine: RestoreEngine,
  excerptPath: string,
  lengthSec: number,
  fade: PreviewWorkParams["fade"],
  ctx: ExecuteContext,
): Promise<{ files: Map<PreviewFile, string>; qualities: PreviewResult["qualities"] }> {
  const files = new Map<PreviewFile, string>();
  const qualities: PreviewResult["qualities"] = [];
  for (const [i, quality] of PREVIEW_QUALITIES.entries()) {
    const clip = path.join(ctx.workDir, `${quality}.mp4`);
    const share = 0.8 / PREVIEW_QUALITIES.length;
    const from = 0.15 + share * i;
    const result = await engine.restore({
      inputPath: excerptPath,
      outputPath: clip,
      durationSec: lengthSec,
      quality,
      // Standard never changes levels: the customer's fade is the enhanced qualities' to obey.
      ...(fade && quality !== "faithful" ? { fade } : {}),
      signal: ctx.signal,
      onProgress: (f) => ctx.progress(from + share * 0.9 * f),
    });
    const after = path.join(ctx.workDir, `${quality}-after.jpg`);
    const pair = path.join(ctx.workDir, `${quality}-pair.jpg`);
    const before = i === 0 ? path.join(ctx.workDir, "before.jpg") : undefined;
    await makeStills({
      excerptPath,
      clipPath: clip,
      atSec: lengthSec / 2,
      width: result.width,
      height: result.height,
      after,
      pair,
      before,
      signal: ctx.signal,
    });
    if (before) files.set("before", before);
    files.set(quality, clip);
    files.set(`${quality}-after`, after);
    files.set(`${quality}-pair`, pair);
    qualities.push({
      quality,
      words: planWords(result.plan),
      width: result.width,
      height: result.height,
    });
  }
  return { files, qualities };
}

/** The preview kind's executor. */
export function createPreviewExecutor(opts: PreviewExecutorOptions): Executor<PreviewWorkParams> {
  const fetchImpl: FetchLike = opts.fetch ?? ((url, init) => fetch(url, init));
  // No spare analysis processes: a preview is occasional, and idle ffmpegs cost memory.
  const engine = createFfmpegRestoreEngine({ spareAnalysis: false });
  return {
    kind: "preview",
    params: PreviewWorkParams,
    // A machine without ffmpeg leaves previews to workers that have it, as it does restores.
    unmetNeeds: () => engine.unmetNeeds?.() ?? [],
    async execute(item, ctx) {
      const inputPath = path.join(ctx.workDir, "input");
      await getInput(item, ctx, inputPath, { ...opts, fetch: fetchImpl });
      ctx.progress(0.05);
      let made: Awaited<ReturnType<typeof restoreEvery>>;
      let window: Awaited<ReturnType<typeof worstWindow>>;
      let realSec: number;
      try {
        realSec = await checkedLength(engine, inputPath, opts.maxDurationSec, ctx.signal);
        const lengthSec = Math.min(item.params.excerptSec, PREVIEW_EXCERPT_MAX_SEC);
        window = await worstWindow({
          inputPath,
          durationSec: realSec,
          lengthSec,
          workDir: ctx.workDir,
          signal: ctx.signal,
        });
        ctx.progress(0.1);
        const excerptPath = path.join(ctx.workDir, "excerpt.mkv");
        await cutExcerpt(inputPath, window, excerptPath, ctx.signal);
        made = await restoreEvery(engine, excerptPath, window.lengthSec, item.params.fade, ctx);
      } catch (err) {
        throw asFinal(err);
      }
      let outputBytes = 0;
      for (const [file, local] of made.files) {
        const headers = item.params.outputs[file];
        if (!headers) throw new Error(`no ticket for the preview's ${file}`);
        const type =
          file.endsWith("after") || file.endsWith("pair") || file === "before"
            ? "image/jpeg"
            : "video/mp4";
        outputBytes += await uploadOutput(
          fetchImpl,
          { outputUrl: item.outputUrl, outputHeaders: headers },
          local,
          type,
          ctx.signal,
        );
      }
      ctx.progress(1);
      const preview: PreviewResult = {
        duration_sec: Math.round(realSec * 1000) / 1000,
        start_sec: window.startSec,
        length_sec: Math.round(window.lengthSec * 1000) / 1000,
        found: window.found,
        qualities: made.qualities,
      };
      return { outputBytes, meta: { preview } };
    },
  };
}

/** The executor with this machine's settings. */
export function previewExecutorFromConfig(
  config: Pick<Config, "restoreLimits" | "allowLoopbackUrls">,
  fetchImpl?: FetchLike,
): Executor<PreviewWorkParams> {
  return createPreviewExecutor({
    maxDurationSec: config.restoreLimits.maxDurationSec,
    allowLoopback: config.allowLoopbackUrls,
    fetch: fetchImpl,
  });
}
