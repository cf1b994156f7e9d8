/**
 * Rate-limit buckets and refusals shared by every surface: a spending MCP tool counts against
 * the same bucket as REST spending by that credential, and both refuse with the same 429.
 */
import { hash } from "node:crypto";
import type { RateLimitsConfig } from "../config.js";
import { ApiError } from "../domain/errors.js";
import type { KinoraEvents } from "../domain/events.js";
import type { Decision, RateLimiter } from "./rate-limit.js";

/** A short digest of a credential: buckets never hold a key in clear. */
export const credentialDigest = (s: string) => hash("sha256", s, "base64url").slice(0, 22);

/**
 * The bucket of tries of a secret from one address (per-address rules count IPv6 by /64): a
 * sign-in on the console or the consent page, and a request refused 401 for the key or token
 * it sent. Its limit is rateLimits.signIn.
 */
export const signInBucket = (address: string) => `signin:${address}`;

/** The IETF RateLimit-* headers for a decision. */
export function rateHeaders(d: Decision): Record<string, string> {
  return {
    "RateLimit-Limit": String(d.limit),
    "RateLimit-Remaining": String(d.remaining),
    "RateLimit-Reset": String(d.resetSec),
  };
}

/** The 429 for a refused decision, with Retry-After. */
export function tooMany(d: Decision, windowMs: number): ApiError {
  return new ApiError(
    "rate_limited",
    `Too many requests: at most ${d.limit} per ${Math.round(windowMs / 1000)} s; retry in ${d.resetSec} s.`,
    {},
    { headers: { ...rateHeaders(d), "Retry-After": String(d.resetSec) } },
  );
}

/** The rules a request can count against: every keyed call, and the operations' buckets. */
type RateRule = "key" | "spend" | "create" | "quote";

/** What counting calls against rate buckets needs. */
export interface RateDeps {
  rateLimiter: RateLimiter;
  config: { rateLimits: RateLimitsConfig };
  events?: Pick<KinoraEvents, "rateLimited"> | undefined;
}

/**
 * Counts one call of `who` against `rule`: the decision (for RateLimit headers), undefined
 * when limits are off, or the 429 thrown when over. Every surface counts through this.
 */
export async function takeRate(
  deps: RateDeps,
  rule: RateRule,
  who: string,
): Promise<Decision | undefined> {
  const cfg = deps.config.rateLimits;
  if (!cfg.enabled) return undefined;
  const limit = cfg[rule];
  const d = await deps.rateLimiter.take(`${rule}:${who}`, limit);
  if (!d.ok) {
    deps.events?.rateLimited({ rule });
    throw tooMany(d, limit.windowMs);
  }
  return d;
}
