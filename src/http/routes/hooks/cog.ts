/**
 * POST /hooks/cog/{engine}: prediction webhooks from a Cog model server (or Replicate). The
 * signature (webhook-signature, HMAC of id.timestamp.body) or the per-prediction URL token is
 * checked before anything is read, then the prediction goes to the in-process waiter.
 *
 * The waiter lives in this process: with several API nodes, route webhooks to the node that
 * waits (sticky routing on the `prediction` query parameter) or rely on polling, which the
 * Cog client does alongside webhooks anyway.
 */

import { ApiError } from "../../../domain/errors.js";
import { type CogHookTarget, handlePredictionWebhook } from "../../../engines/cog/webhook.js";
import { smallBody } from "../../middleware/body-limit.js";
import type { Router } from "../../router.js";

/** Signature timestamps are checked against the wall clock (not an injected one). */
export function registerCogHooks(app: Router, targets: Record<string, CogHookTarget>) {
  app.post("/hooks/cog/:engine", smallBody, async (c) => {
    const target = targets[c.req.param("engine")];
    if (!target) throw new ApiError("not_found", "No remote engine of that name is configured.");
    const rawBody = Buffer.from(await c.req.arrayBuffer());
    const result = handlePredictionWebhook({
      headers: c.req.raw.headers,
      rawBody,
      url: c.req.url,
      secret: target.secret,
      tokens: target.tokens,
      waiter: target.waiter,
    });
    return c.json(result.body, result.status);
  });
}
