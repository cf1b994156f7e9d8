/**
 * A route's rate limit: counts the request in its bucket and answers 429 with Retry-After and
 * the RateLimit headers (IETF draft: RateLimit-Limit, -Remaining, -Reset) when over; every
 * limited response carries the headers so clients can pace themselves.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../domain/errors.js";
import type { Limit, RateLimiter } from "../../services/rate-limit.js";
import type { AppEnv } from "../env.js";
import { withEarlyHeaders } from "./early-headers.js";

/** The caller's address: the socket's, or the first X-Forwarded-For hop behind a trusted proxy. */
export function clientAddress(c: Context<AppEnv>, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming;
  return incoming?.socket?.remoteAddress ?? "local";
}

export function rateLimit(
  limiter: RateLimiter,
  name: string,
  limit: Limit,
  key: (c: Context<AppEnv>) => string,
  enabled = true,
) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!enabled) return next();
    const d = await limiter.take(`${name}:${key(c)}`, limit);
    const headers = {
      "RateLimit-Limit": String(d.limit),
      "RateLimit-Remaining": String(d.remaining),
      "RateLimit-Reset": String(d.resetSec),
    };
    if (!d.ok) {
      throw new ApiError(
        "rate_limited",
        `Too many requests: at most ${limit.max} per ${Math.round(limit.windowMs / 1000)} s here; retry in ${d.resetSec} s.`,
        {},
        { headers: { ...headers, "Retry-After": String(d.resetSec) } },
      );
    }
    await withEarlyHeaders(c, headers, next);
  });
}
