/**
 * A route's rate limit: counts the request in its bucket and answers 429 with Retry-After and
 * the RateLimit headers (IETF draft: RateLimit-Limit, -Remaining, -Reset) when over; every
 * limited response carries the headers so clients can pace themselves.
 */
import { isIPv6 } from "node:net";
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
    if (forwarded) return addressForRules(forwarded);
  }
  // cast: @hono/node-server puts Node's IncomingMessage in c.env (Hono types env as the app's bindings)
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming;
  return addressForRules(incoming?.socket?.remoteAddress ?? "local");
}

/**
 * An address as per-address rules count it: IPv4 as is (also when IPv4-mapped), IPv6 by its
 * /64 — one subscriber's allocation, so hopping through its 2^64 addresses gains nothing.
 */
function addressForRules(address: string): string {
  const bare = address.split("%")[0] ?? address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(bare)) return address;
  const [head = "", tail] = bare.split("::");
  // An embedded IPv4 (last 32 bits) stands for two groups.
  const groups = (part: string) =>
    part ? part.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g])) : [];
  const front = groups(head);
  const full =
    tail === undefined
      ? front
      : [...front, ...Array(8 - front.length - groups(tail).length).fill("0"), ...groups(tail)];
  return `${full
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

/** Counts a route's calls per client address against a named bucket. */
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
