/**
 * Idempotency-Key on POSTs (after Stripe): the same key with the same request replays the
 * first response; with another request it is a 409. Records belong to the caller's credential
 * and are stored sealed for it (services/idempotency.ts), so a replay only ever goes back to
 * the caller who made the request. Anonymous requests (no credential) are never stored or
 * replayed; a 401 (the credential was not valid) and a 5xx (retryable) are not stored either.
 */
import { createMiddleware } from "hono/factory";
import type { CoreDeps } from "../../services/deps.js";
import {
  claimIdempotency,
  type IdempotencyLimits,
  type IdempotentRequest,
  releaseIdempotency,
  storeIdempotentResponse,
} from "../../services/idempotency.js";
import type { AppEnv } from "../env.js";

const REPLAYED_HEADERS = ["content-type", "location", "payment-required", "payment-response"];

export function idempotency(deps: CoreDeps, limits?: IdempotencyLimits) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const key = c.req.header("idempotency-key");
    const credential = c.req.header("authorization");
    if (c.req.method !== "POST" || key === undefined || !credential) return next();
    const url = new URL(c.req.url);
    // A signed x402 retry is a different request from the unpaid one, even with the same body.
    const payment = c.req.header("payment-signature") ?? "";
    const req: IdempotentRequest = {
      credential,
      key,
      fingerprint: `${c.req.method} ${url.pathname}${url.search}\n${payment}\n${await c.req.text()}`,
    };
    const claim = await claimIdempotency(deps, req, limits);
    if (claim.kind === "replay") {
      const headers = new Headers(claim.response.headers);
      headers.set("Idempotent-Replayed", "true");
      return new Response(claim.response.body, { status: claim.response.status, headers });
    }

    let stored = false;
    try {
      await next();
      const status = c.res.status;
      if (status < 500 && status !== 401) {
        const headers: Record<string, string> = {};
        for (const name of REPLAYED_HEADERS) {
          const value = c.res.headers.get(name);
          if (value !== null) headers[name] = value;
        }
        await storeIdempotentResponse(deps, req, {
          status,
          body: await c.res.clone().text(),
          headers,
        });
        stored = true;
      }
    } finally {
      if (!stored) await releaseIdempotency(deps, req);
    }
  });
}
