/** The assistant-only combinations' handlers: each calls the same services as the REST parts. */

import * as c from "../api/contracts/assistant.js";
import { implement, type Operation } from "../api/operation.js";
import { notFound } from "../domain/errors.js";
import { cancelClip } from "../kinds/clips/services/commands.js";
import { motionConfig } from "../kinds/clips/services/config.js";
import type { ClipDeps } from "../kinds/clips/services/deps.js";
import { priceTableView } from "../kinds/restore/rules/pricing.js";
import { cancelRestoreJob } from "../kinds/restore/services/commands.js";
import type { RestoreDeps } from "../kinds/restore/services/deps.js";
import { freshPrincipal, walletView } from "../services/wallets.js";

interface AssistantDeps {
  restore: RestoreDeps;
  clips: ClipDeps;
}

const prices = implement(c.getPrices, async (deps: AssistantDeps) => ({
  restore: priceTableView(deps.restore.config.restoreLimits),
  clips: motionConfig(),
}));

const cancel = implement(c.cancelJob, async (deps: AssistantDeps, a, ctx) => {
  if (a.job_id.startsWith("rj_")) return cancelRestoreJob(deps.restore, ctx.principal, a.job_id);
  if (a.job_id.startsWith("clip_")) {
    const job = await cancelClip(deps.clips, ctx.principal, a.job_id);
    return { job, wallet: await walletView(deps.restore, freshPrincipal(ctx.principal)) };
  }
  throw notFound("Job (ids start with rj_ for restores and clip_ for clips)");
});

/** The assistant-only operations (no REST binding), bound to the restore and clip services. */
export function assistantOperations(deps: AssistantDeps): Operation[] {
  return [prices, cancel].map((bind) => bind(deps));
}
