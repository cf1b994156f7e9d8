/**
 * Which restore engine a worker runs, from its environment: RESTORE_ENGINE=ffmpeg (default,
 * local CPU) or cog (a remote GPU model over the Cog protocol at RESTORE_COG_URL, with
 * RESTORE_COG_TOKEN, polled; the model fetches the input from its presigned URL).
 */
import type { Config } from "../../config.js";
import { ConfigError } from "../../config.js";
import { createCogRestoreEngine } from "../../engines/cog/cog-engines.js";
import { createFfmpegRestoreEngine, measureDurationSec } from "../../engines/restore/index.js";
import type { Executor } from "../types.js";
import { createRestoreExecutor, type RestoreEngineLike } from "./restore.js";
import type { FetchLike } from "./transfer.js";

export function restoreEngineFromConfig(config: Pick<Config, "env">): RestoreEngineLike {
  const env = config.env;
  const kind = env.RESTORE_ENGINE ?? "ffmpeg";
  if (kind === "ffmpeg") return createFfmpegRestoreEngine();
  if (kind !== "cog") {
    throw new ConfigError(
      `Invalid configuration:\n  RESTORE_ENGINE: must be ffmpeg or cog, got ${kind}`,
    );
  }
  const baseUrl = env.RESTORE_COG_URL;
  if (!baseUrl || !/^https?:\/\//.test(baseUrl)) {
    throw new ConfigError(
      "Invalid configuration:\n  RESTORE_COG_URL: is required when RESTORE_ENGINE=cog (http(s) URL of the Cog model)",
    );
  }
  return createCogRestoreEngine({
    baseUrl,
    token: env.RESTORE_COG_TOKEN,
    timeoutMs: Number(env.RESTORE_COG_TIMEOUT_MS ?? 3 * 3600_000),
    pollIntervalMs: 2000,
    measureDurationSec,
  }) as RestoreEngineLike;
}

export function restoreExecutorFromConfig(
  config: Pick<Config, "env">,
  opts: { fetch?: FetchLike } = {},
): Executor {
  return createRestoreExecutor({ engine: restoreEngineFromConfig(config), fetch: opts.fetch });
}
