/**
 * Which restore engine a worker runs, from its environment: RESTORE_ENGINE=ffmpeg (default,
 * local CPU) or cog (a remote GPU model over the Cog protocol at RESTORE_COG_URL, with
 * RESTORE_COG_TOKEN, polled; the model fetches the input from its presigned URL).
 */
import type { Config } from "../../../config.js";
import { createCogRestoreEngine } from "../../../engines/cog/cog-engines.js";
import type { RestoreEngine } from "../../../engines/contracts.js";
import { createFfmpegRestoreEngine, measureDurationSec } from "../../../engines/restore/index.js";
import type { Executor } from "../../../jobs/work.js";
import type { FetchLike } from "../../../workers/transfer.js";
import type { RestoreWorkParams } from "../services/definition.js";
import type { VideoFetchSeam } from "../services/deps.js";
import { createRestoreExecutor } from "./executor.js";

/** The restore engine the settings name (ffmpeg or a Cog server). */
export function restoreEngineFromConfig(config: Pick<Config, "engines">): RestoreEngine {
  const e = config.engines.restore;
  if (e.kind === "ffmpeg") return createFfmpegRestoreEngine();
  return createCogRestoreEngine({
    baseUrl: e.url,
    token: e.token,
    timeoutMs: e.timeoutMs,
    pollIntervalMs: 2000,
    measureDurationSec,
  });
}

/**
 * The restore executor with the engine the settings name; a video_url reaches loopback only
 * when this process's settings allow it (ALLOW_LOOPBACK_URLS, development).
 */
export function restoreExecutorFromConfig(
  config: Pick<Config, "engines" | "allowLoopbackUrls">,
  opts: { fetch?: FetchLike; videoFetch?: VideoFetchSeam } = {},
): Executor<RestoreWorkParams> {
  const engine = restoreEngineFromConfig(config);
  const videoFetch = { allowLoopback: config.allowLoopbackUrls, ...opts.videoFetch };
  const e = config.engines.restore;
  const segments =
    e.kind === "ffmpeg" ? { segmentSec: e.segmentSec, segmentThreads: e.segmentThreads } : {};
  return createRestoreExecutor({ engine, fetch: opts.fetch, videoFetch, ...segments });
}
