/**
 * Motion clips as a Feature: the /motion routes, the clip job queue, its executor for the
 * in-process workers, the Cog webhook route when a remote engine is configured, and the
 * retention sweeper — and the clip kind's registry entry (src/job-kinds.ts).
 *
 * Engine (env, read through config.env):
 * - CLIP_ENGINE=ffmpeg (default): the CPU engine (sharp + ffmpeg) in the worker process.
 * - CLIP_ENGINE=cog: a remote model over the Cog HTTP protocol at CLIP_COG_URL (Bearer
 *   CLIP_COG_TOKEN if set). With COG_WEBHOOK_SECRET set, completions arrive by webhook at
 *   POST /hooks/cog/clip (polling continues as a fallback); without it, polling only.
 */

import {
  createNsfwjsClassifier,
  type ImageClassifier,
} from "../../engines/moderation/image-classifier.js";
import type { FeatureFactory, Platform } from "../../feature.js";
import { type JobKindEntry, kindQueue, startSweeper } from "../../features/job-kind.js";
import { sharedBundle } from "../../features/shared-services.js";
import { registerCogHooks } from "../../http/routes/hooks/cog.js";
import {
  type ClipExecutorOptions,
  clipEngineFromConfig,
  clipExecutorFromConfig,
  createClipExecutor,
} from "./executor/executor.js";
import { clipOperations } from "./operations.js";
import { clipJobs } from "./services/definition.js";
import type { ClipDeps, ClipImageFetchSeam } from "./services/deps.js";
import { clipView } from "./services/view.js";

/** What a test or benchmark may replace in the clips feature. */
export interface ClipsFeatureOptions {
  /** Replaces the engine chosen from config (tests, benchmarks). */
  engine?: ClipExecutorOptions["engine"];
  classifier?: ImageClassifier;
  /** How in-process workers fetch URLs (tests route in-process URLs back into the app). */
  fetch?: typeof fetch;
  /** Safe-fetch seams for image_url (tests only: lets a 127.0.0.1 server through). */
  imageFetch?: ClipImageFetchSeam;
  /** Run no executor in this process (e.g. only remote workers). */
  noExecutor?: boolean;
  sweepEveryMs?: number;
}

/**
 * The clip services' dependencies, built once per platform (features/shared-services.ts): the
 * clips feature, the MCP tools and the console share them.
 */
export function clipDeps(p: Platform, opts: ClipsFeatureOptions = {}): ClipDeps {
  return sharedBundle(p, "clips", () => buildClipDeps(p, opts));
}

function buildClipDeps(p: Platform, opts: ClipsFeatureOptions): ClipDeps {
  return {
    db: p.db,
    clock: p.clock,
    ids: p.ids,
    log: p.log,
    events: p.events,
    storage: p.storage,
    config: p.config,
    publicUrl: p.publicUrl,
    notifyJobs: () => p.notifyJobs(),
    jobWatch: p.jobWatch,
    jobKinds: p.jobKinds,
    // ALLOW_LOOPBACK_URLS (development) lets an image_url on this machine through.
    imageFetch: { allowLoopback: p.config.allowLoopbackUrls, ...opts.imageFetch },
  };
}

/** The clips feature: its operations, queue, in-process executor and retention sweeper. */
export function clipsFeature(opts: ClipsFeatureOptions = {}): FeatureFactory {
  return (p) => {
    const deps = clipDeps(p, opts);
    const choice = opts.engine ? { engine: opts.engine } : clipEngineFromConfig(p.config, p);
    const classifier = opts.classifier ?? createNsfwjsClassifier();
    const executor = createClipExecutor({
      engine: choice.engine,
      classifier,
      fetchImpl: opts.fetch,
    });
    const runsClips = !opts.noExecutor && p.config.workers.inProcess > 0;
    return {
      name: "clips",
      operations: clipOperations(deps),
      routes(app) {
        if (choice.hook) registerCogHooks(app, { clip: choice.hook });
      },
      queues: [kindQueue(clipJobs, p)],
      executors: opts.noExecutor ? [] : [executor],
      start: async () => {
        // A classifier missing its packages is reported by the workers (workers/readiness.ts).
        if (runsClips && !classifier.unmetNeeds?.().length) warmSoon(classifier, p);
        return startSweeper(clipJobs, p, opts.sweepEveryMs);
      },
    };
  };
}

/** The clip kind: its definition, the executor the configured engine runs, its feature. */
export const clipKind: JobKindEntry = {
  definition: clipJobs,
  executor: (config, seams) => clipExecutorFromConfig(config, seams),
  feature: () => clipsFeature(),
  view: (p) => (row) => clipView(row, clipDeps(p)),
};

/**
 * Loads the image classifier (tfjs + the model, ~2 s of CPU) shortly after the server listens,
 * so the first clip does not wait for it and the start itself does not either.
 */
function warmSoon(classifier: ImageClassifier, p: Platform, delayMs = 1500): void {
  const warm = classifier.warm?.bind(classifier);
  if (!warm) return;
  setTimeout(() => {
    warm().catch((err: unknown) => p.log.warn("image classifier failed to load", { err }));
  }, delayMs).unref();
}
