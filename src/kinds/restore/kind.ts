/**
 * Cloud restore as a Feature: the /cloud routes, the restore kind's job queue (from the job
 * engine), its executor for the in-process workers, and the retention sweeper — and the
 * restore kind's registry entry (src/job-kinds.ts).
 */

import type { FeatureFactory } from "../../feature.js";
import { type JobKindEntry, kindQueue, startSweeper } from "../../features/job-kind.js";
import type { FetchLike } from "../../workers/transfer.js";
import { restoreExecutorFromConfig } from "./executor/engine.js";
import { restoreOperations } from "./operations.js";
import { restoreJobs } from "./services/definition.js";
import type { VideoFetchSeam } from "./services/deps.js";
import { jobView } from "./services/views.js";

interface RestoreFeatureOptions {
  /** How in-process workers fetch URLs (tests route in-process URLs back into the app). */
  fetch?: FetchLike;
  /** Run no executor in this process (e.g. only remote workers). */
  noExecutor?: boolean;
  sweepEveryMs?: number;
  /** Test seam: how a video_url is checked and fetched (a local server, shorter caps). */
  videoFetch?: VideoFetchSeam;
}

/** The restore feature: its operations, queue, in-process executor and retention sweeper. */
export function restoreFeature(opts: RestoreFeatureOptions = {}): FeatureFactory {
  return (p) => ({
    name: "restore",
    // ALLOW_LOOPBACK_URLS (development) lets a video_url on this machine through the check.
    operations: restoreOperations({
      ...p,
      videoFetch: { allowLoopback: p.config.allowLoopbackUrls, ...opts.videoFetch },
    }),
    queues: [kindQueue(restoreJobs, p)],
    executors: opts.noExecutor
      ? []
      : [restoreExecutorFromConfig(p.config, { fetch: opts.fetch, videoFetch: opts.videoFetch })],
    start: async () => startSweeper(restoreJobs, p, opts.sweepEveryMs),
  });
}

/** The restore kind: its definition, the executor the configured engine runs, its feature. */
export const restoreKind: JobKindEntry = {
  definition: restoreJobs,
  executor: (config, seams) => restoreExecutorFromConfig(config, seams),
  feature: () => restoreFeature(),
  view: (p) => (row) => jobView(p, row),
};
