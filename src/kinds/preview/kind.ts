/**
 * The free restore preview, declared once: about 5 s of a video, from where the analysis finds
 * the most damage, restored at every quality with before/after stills and the plan in words.
 * Its job definition, id prefix, operations and roles, what assistants are told, the executor
 * and its feature (operations, queue, in-process executor, retention sweeper). src/job-kinds.ts
 * lists it.
 */
import type { FeatureFactory } from "../../feature.js";
import type { FetchLike } from "../../workers/transfer.js";
import { defineJobKind, kindFeature } from "../kind.js";
import * as c from "./api/contracts.js";
import { PREVIEW_INSTRUCTIONS } from "./api/instructions.js";
import { previewExecutorFromConfig } from "./executor/executor.js";
import { PREVIEW_OPERATIONS, previewOperations } from "./operations.js";
import { previewJobs } from "./services/definition.js";
import { previewSettings } from "./services/settings.js";
import type { PreviewRow } from "./services/table.js";
import { previewView } from "./services/views.js";

interface PreviewFeatureOptions {
  /** How in-process workers fetch URLs (tests route in-process URLs back into the app). */
  fetch?: FetchLike;
  /** Run no executor in this process (only remote workers). */
  noExecutor?: boolean;
  sweepEveryMs?: number;
}

/** The preview feature: its operations, queue, in-process executor and retention sweeper. */
export function previewFeature(opts: PreviewFeatureOptions = {}): FeatureFactory {
  return (p) => {
    // A bad PREVIEW_PER_HOUR stops the start, not a caller's request.
    previewSettings(p.config.env);
    return kindFeature(previewKind, p, {
      operations: previewOperations(p),
      executors: opts.noExecutor ? [] : [previewExecutorFromConfig(p.config, opts.fetch)],
      sweepEveryMs: opts.sweepEveryMs,
    });
  };
}

/** The preview kind. */
export const previewKind = defineJobKind({
  definition: previewJobs,
  idPrefix: "pv",
  plural: "previews",
  operations: PREVIEW_OPERATIONS,
  roles: {
    get: c.getPreview,
    follow: c.previewRestoreTool,
    list: c.listPreviews,
    cancel: c.cancelPreview,
    prices: c.getPreviewPrices,
  },
  instructions: PREVIEW_INSTRUCTIONS,
  executor: (config, seams) => previewExecutorFromConfig(config, seams?.fetch),
  feature: () => previewFeature(),
  view: (p) => (row: PreviewRow) => previewView(p, row),
});
