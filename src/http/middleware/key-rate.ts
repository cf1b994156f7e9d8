/**
 * Every request made with a caller's key or token (a wallet key, an agent key, a connected
 * app's token — in the Authorization header, or in `?key=` for MCP clients that take only a
 * URL) counts against that credential's bucket, good or bad: the digest needs no lookup, and
 * a guessed key is limited like a real one. Machine tokens (operator, workers, scraper) are not
 * callers' keys and are not counted. Every such response carries the RateLimit headers.
 */
import { createMiddleware } from "hono/factory";
import {
  credentialDigest,
  type RateDeps,
  rateHeaders,
  signInBucket,
  takeRate,
  tooMany,
} from "../../services/rate-buckets.js";
import type { AppEnv } from "../env.js";
import { withEarlyHeaders } from "./early-headers.js";
import { clientAddress } from "./rate-limit.js";

const CALLER_CREDENTIAL = /^(pmk|pak|kat)_/;

/** Counts every keyed call against the key's own bucket (429 when over). */
export function keyRate(deps: RateDeps) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header("authorization");
    const sent = header ? header.replace(/^Bearer\s+/i, "") : c.req.query("key");
    if (!sent || !CALLER_CREDENTIAL.test(sent)) return next();
    const decision = await takeRate(deps, "key", credentialDigest(sent));
    c.set("rateDecision", decision);
    if (!decision) return next();
    await withEarlyHeaders(c, rateHeaders(decision), next);
  });
}

/**
 * A request that sent a key or token (in Authorization or `?key=`) and was refused 401 is a
 * failed guess: it counts against its address's sign-in bucket, and over the limit the refusal
 * is a 429 with Retry-After instead. Requests whose key is good are never counted or refused.
 */
export function keyGuesses(deps: RateDeps & { config: { trustProxy: boolean } }) {
  return createMiddleware<AppEnv>(async (c, next) => {
    await next();
    const cfg = deps.config.rateLimits;
    if (c.res.status !== 401 || !cfg.enabled) return;
    if (c.req.header("authorization") === undefined && c.req.query("key") === undefined) return;
    const address = clientAddress(c, deps.config.trustProxy);
    const d = await deps.rateLimiter.take(signInBucket(address), cfg.signIn);
    if (d.ok) return;
    deps.events?.rateLimited({ rule: "signin" });
    throw tooMany(d, cfg.signIn.windowMs);
  });
}
