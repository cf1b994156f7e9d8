/**
 * Every executor a `kinora worker` process runs. A new job kind adds one line here (and its
 * Feature lists the same executor for the in-process workers of `kinora serve`).
 */
import type { Config } from "../../config.js";
import type { Executor } from "../../jobs/work.js";
import { clipExecutorFromConfig } from "./clip.js";
import { restoreExecutorFromConfig } from "./restore-engine.js";
import type { FetchLike } from "./transfer.js";

export interface ExecutorOptions {
  fetch?: FetchLike;
}

export function buildExecutors(
  config: Pick<Config, "engines">,
  opts: ExecutorOptions = {},
): Executor[] {
  return [restoreExecutorFromConfig(config, opts), clipExecutorFromConfig(config, opts)];
}
