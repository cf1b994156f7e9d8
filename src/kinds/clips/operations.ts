/** The clip operations' handlers. */

import { implement, type Operation } from "../../api/operation.js";
import { waitOptions } from "../../operations/wait.js";
import { checkJobWebhook, receiverPolicy } from "../../services/webhooks/job-webhook.js";
import * as c from "./api/contracts.js";
import { clipPrice } from "./rules/rules.js";
import { cancelClip, getClip, listClipsPage, startClip } from "./services/commands.js";
import { motionConfig } from "./services/config.js";
import { createClip } from "./services/create.js";
import type { ClipDeps } from "./services/deps.js";

const config = implement(c.getMotionConfig, async () => motionConfig());

const quote = implement(c.quoteClip, async (_deps, a) => clipPrice(a.size));

const make = implement(c.createClip, async (deps: ClipDeps, a, ctx) =>
  createClip(deps, ctx.principal, {
    prompt: a.prompt,
    size: a.size,
    seconds: a.seconds,
    loop: a.loop,
    seed: a.seed,
    imageUrl: a.image_url,
    contentType: a.content_type,
    imageBytes: a.image_bytes,
    webhook: await checkJobWebhook(receiverPolicy(deps.config), ctx.principal, a),
  }),
);

const list = implement(c.listClips, async (deps: ClipDeps, a, ctx) =>
  listClipsPage(deps, ctx.principal, a),
);

const read = implement(c.getClip, async (deps: ClipDeps, a, ctx) => ({
  job: await getClip(deps, ctx.principal, a.job_id, waitOptions(a, ctx)),
}));

const start = implement(c.startClip, async (deps: ClipDeps, a, ctx) => ({
  job: await startClip(deps, ctx.principal, a.job_id),
}));

const cancel = implement(c.cancelClip, async (deps: ClipDeps, a, ctx) => ({
  job: await cancelClip(deps, ctx.principal, a.job_id),
}));

/** The clip operations the clips feature serves, not yet bound to their services. */
export const CLIP_OPERATIONS = [config, quote, make, list, read, start, cancel];

/** The clip area's operations, bound to its dependencies. */
export function clipOperations(deps: ClipDeps): Operation[] {
  return CLIP_OPERATIONS.map((bind) => bind(deps));
}
