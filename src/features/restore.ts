/**
 * Cloud restore as a Feature: the /cloud routes, the restore job queue, its executor for the
 * in-process workers, and the retention sweeper.
 */
import { registerCloudRoutes } from "../http/routes/cloud/index.js";
import type { FeatureFactory } from "../platform.js";
import { createRestoreQueue } from "../services/restore/queue.js";
import { restoreExecutorFromConfig } from "../workers/executors/restore-engine.js";
import type { FetchLike } from "../workers/executors/transfer.js";
import { startRestoreSweeper } from "../workers/sweeper.js";

export interface RestoreFeatureOptions {
  /** How in-process workers fetch URLs (tests route in-process URLs back into the app). */
  fetch?: FetchLike;
  /** Run no executor in this process (e.g. only remote workers). */
  noExecutor?: boolean;
}

export function restoreFeature(opts: RestoreFeatureOptions = {}): FeatureFactory {
  return (p) => ({
    name: "restore",
    routes: (app) => registerCloudRoutes(app, p),
    queues: [createRestoreQueue(p)],
    executors: opts.noExecutor ? [] : [restoreExecutorFromConfig(p.config, { fetch: opts.fetch })],
    start: async () => startRestoreSweeper(p),
  });
}
