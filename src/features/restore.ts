/**
 * Cloud restore as a Feature: the /cloud routes, the restore kind's job queue (from the job
 * engine), its executor for the in-process workers, and the retention sweeper.
 */
import { registerCloudRoutes } from "../http/routes/cloud/index.js";
import { createJobQueue } from "../jobs/queue.js";
import { restoreJobs } from "../jobs/restore.js";
import { startSweeper } from "../jobs/retention.js";
import { type FeatureFactory, jobEngineDeps } from "../platform.js";
import { restoreExecutorFromConfig } from "../workers/executors/restore-engine.js";
import type { FetchLike } from "../workers/executors/transfer.js";

export interface RestoreFeatureOptions {
  /** How in-process workers fetch URLs (tests route in-process URLs back into the app). */
  fetch?: FetchLike;
  /** Run no executor in this process (e.g. only remote workers). */
  noExecutor?: boolean;
  sweepEveryMs?: number;
}

export function restoreFeature(opts: RestoreFeatureOptions = {}): FeatureFactory {
  return (p) => ({
    name: "restore",
    routes: (app) => registerCloudRoutes(app, p),
    queues: [createJobQueue(restoreJobs, jobEngineDeps(p))],
    executors: opts.noExecutor ? [] : [restoreExecutorFromConfig(p.config, { fetch: opts.fetch })],
    start: async () => startSweeper(restoreJobs, jobEngineDeps(p), opts.sweepEveryMs),
  });
}
