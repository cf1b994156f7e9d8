/** The preview operations' handlers: each maps its input onto one service call. */
import { type CallContext, implement, type Operation } from "../../api/operation.js";
import { invalidField } from "../../domain/errors.js";
import { waitOptions } from "../../operations/wait.js";
import * as c from "./api/contracts.js";
import {
  PREVIEW_EXCERPT_MAX_SEC,
  PREVIEW_EXCERPT_SEC,
  PREVIEW_QUALITIES,
} from "./rules/transitions.js";
import type { PreviewDeps } from "./services/deps.js";
import {
  cancelPreview,
  createPreview,
  getPreview,
  listPreviews,
  ownedPreview,
  previewMaxBytes,
  startPreview,
} from "./services/jobs.js";
import { previewSettings } from "./services/settings.js";

const prices = implement(c.getPreviewPrices, async (d: PreviewDeps) => ({
  price_cents: 0 as const,
  excerpt_sec: PREVIEW_EXCERPT_SEC,
  excerpt_max_sec: PREVIEW_EXCERPT_MAX_SEC,
  per_hour: previewSettings(d.config.env).perHour,
  max_duration_sec: d.config.restoreLimits.maxDurationSec,
  max_size_bytes: previewMaxBytes(d),
  qualities: [...PREVIEW_QUALITIES],
}));

/** What to do after making a preview, naming the caller's calls. */
function nextStep(job: { id: string; video_url: string | null }, ctx: CallContext): string {
  const args = { job_id: job.id };
  const follow = `call ${ctx.refer([c.getPreview, c.previewRestoreTool], args)} until status is done (a minute or two), then show each quality's pair_url and words.`;
  if (job.video_url !== null) return `Nothing to upload: the server fetches the video; ${follow}`;
  return `PUT the file to upload_url with upload_headers within an hour, then ${ctx.refer([c.startPreview, c.previewRestoreTool], args)}; ${follow}`;
}

const create = implement(c.createPreview, async (d: PreviewDeps, a, ctx) => {
  const made = await createPreview(d, ctx.principal, a);
  return { ...made, next: nextStep(made.job, ctx) };
});
const list = implement(c.listPreviews, (d: PreviewDeps, a, ctx) =>
  listPreviews(d, ctx.principal, a),
);
const read = implement(c.getPreview, (d: PreviewDeps, a, ctx) =>
  getPreview(d, ctx.principal, a.job_id, waitOptions(a, ctx)),
);
const start = implement(c.startPreview, (d: PreviewDeps, a, ctx) =>
  startPreview(d, ctx.principal, a.job_id),
);
const cancel = implement(c.cancelPreview, (d: PreviewDeps, a, ctx) =>
  cancelPreview(d, ctx.principal, a.job_id),
);

/**
 * The MCP tool: with job_id it starts an uploaded preview whose file has arrived and follows it;
 * otherwise it makes one, as createPreview does.
 */
const tool = implement(c.previewRestoreTool, async (d: PreviewDeps, a, ctx) => {
  const { job_id, wait_seconds, video_url } = a;
  if (job_id === undefined) {
    if (video_url === undefined) {
      throw invalidField(
        "video_url",
        "is required: a public URL of the video (or job_id to follow a preview)",
      );
    }
    const made = await createPreview(d, ctx.principal, { video_url, fade: a.fade });
    return { ...made, next: nextStep(made.job, ctx) };
  }
  const row = await ownedPreview(d, ctx.principal, job_id);
  if (row.status === "awaiting_upload" && (await d.storage.head(row.input_key))) {
    await startPreview(d, ctx.principal, job_id);
  }
  return getPreview(d, ctx.principal, job_id, waitOptions({ wait_seconds }, ctx));
});

/** The preview's operations, not yet bound to its services. */
export const PREVIEW_OPERATIONS = [prices, create, list, read, start, cancel, tool];

/** The preview's operations, bound. */
export function previewOperations(deps: PreviewDeps): Operation[] {
  return PREVIEW_OPERATIONS.map((bind) => bind(deps));
}
