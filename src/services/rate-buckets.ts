/**
 * Rate-limit buckets and refusals shared by every surface: a spending MCP tool counts against
 * the same bucket as REST spending by that credential, and both refuse with the same 429.
 */
import { hash } from "node:crypto";
import { ApiError } from "../domain/errors.js";
import type { Decision } from "./rate-limit.js";

/** A short digest of a credential: buckets never hold a key in clear. */
export const credentialDigest = (s: string) => hash("sha256", s, "base64url").slice(0, 22);

/** The bucket a credential's spending counts against (REST routes and MCP tools alike). */
export const spendBucket = (credential: string) =>
  `spend:${credentialDigest(credential.replace(/^Bearer\s+/i, ""))}`;

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
