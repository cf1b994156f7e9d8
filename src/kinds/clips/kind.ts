/**
 * Motion clips, declared once: the job definition, id prefix, operations and the roles the
 * surfaces reach it by, what assistants are told, the executor the configured engine runs, and
 * the feature (the /motion routes, its queue, the in-process executor, the Cog webhook route
 * when a remote engine is configured, the retention sweeper). src/job-kinds.ts lists it.
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
import { registerCogHooks } from "../../http/routes/hooks/cog.js";
import { defineJobKind, kindFeature } from "../kind.js";
import * as c from "./api/contracts.js";
import { CLIP_INSTRUCTIONS } from "./api/instructions.js";
import {
  type ClipExecutorOptions,
  clipEngineFromConfig,
  clipExecutorFromConfig,
  createClipExecutor,
} from "./executor/executor.js";
import { CLIP_OPERATIONS, clipOperations } from "./operations.js";
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
 * The clip services' dependencies on this platform: its shared services and the image_url
 * fetch seam (tests only). Nothing in it is built: each feature that reads clips may make its
 * own.
 */
export function clipDeps(
  p: Platform,
  opts: Pick<ClipsFeatureOptions, "imageFetch"> = {},
): ClipDeps {
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
    const choice = opts.engine ? { engine: opts.engine } : clipEngineFromConfig(p.config, p);
    const classifier = opts.classifier ?? createNsfwjsClassifier();
    const executor = createClipExecutor({
      engine: choice.engine,
      classifier,
      fetchImpl: opts.fetch,
    });
    const runsClips = !opts.noExecutor && p.config.workers.inProcess > 0;
    return kindFeature(clipKind, p, {
      operations: clipOperations(clipDeps(p, opts)),
      executors: opts.noExecutor ? [] : [executor],
      sweepEveryMs: opts.sweepEveryMs,
      routes(app) {
        if (choice.hook) registerCogHooks(app, { clip: choice.hook });
      },
      // A classifier missing its packages is reported by the workers (workers/readiness.ts).
      start: () => {
        if (runsClips && !classifier.unmetNeeds?.().length) warmSoon(classifier, p);
      },
    });
  };
}

/** The clip kind. */
export const clipKind = defineJobKind({
  definition: clipJobs,
  idPrefix: "clip",
  plural: "clips",
  operations: CLIP_OPERATIONS,
  roles: {
    get: c.getClip,
    list: c.listClips,
    cancel: c.cancelClip,
    prices: c.getMotionConfig,
  },
  instructions: CLIP_INSTRUCTIONS,
  executor: (config, seams) => clipExecutorFromConfig(config, seams),
  feature: () => clipsFeature(),
  view: (p) => (row) => clipView(row, clipDeps(p)),
});

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
