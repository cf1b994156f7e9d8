/**
 * Which requests are limited, in one table: unauthenticated creates and quotes per client
 * address; spending requests, and every request made with a key, per key (the credential's
 * digest — no lookup needed, and a bad key is limited like a good one). A request matching
 * several rules counts against each; the first that is over answers 429 with Retry-After, and
 * every limited response carries the tightest rule's RateLimit-* headers.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { RateLimitsConfig } from "../../config.js";
import { credentialDigest, rateHeaders, tooMany } from "../../services/rate-buckets.js";
import type { Decision, Limit, RateLimiter } from "../../services/rate-limit.js";
import type { AppEnv } from "../env.js";
import { withEarlyHeaders } from "./early-headers.js";
import { clientAddress } from "./rate-limit.js";

type By = "address" | "credential";

interface Rule {
  name: string;
  applies(method: string, path: string, c: Context<AppEnv>): boolean;
  by: By;
  limit(cfg: RateLimitsConfig): Limit;
}

const credentialOf = (c: Context<AppEnv>): string | undefined =>
  c.req.header("authorization") ?? (c.req.path === "/mcp" ? c.req.query("key") : undefined);

const SPENDING = /^\/(motion\/jobs|wallet\/topup|wallet\/topup\/crypto|wallet\/keys)$/;
/** Machine credentials (operator, workers) are not caller keys. */
const NOT_CALLER = /^\/(admin|worker)\/|^\/metrics$/;

export const RATE_RULES: readonly Rule[] = [
  {
    name: "create",
    by: "address",
    applies: (m, p, c) =>
      m === "POST" &&
      (p === "/wallet" ||
        /^\/cloud\/jobs\/[^/]+\/checkout$/.test(p) ||
        (p === "/cloud/jobs" && !credentialOf(c))),
    limit: (cfg) => cfg.create,
  },
  {
    name: "quote",
    by: "address",
    applies: (m, p) =>
      (m === "POST" && p === "/cloud/quote") || (m === "GET" && p === "/motion/quote"),
    limit: (cfg) => cfg.quote,
  },
  {
    name: "spend",
    by: "credential",
    applies: (m, p, c) =>
      m === "POST" && (SPENDING.test(p) || (p === "/cloud/jobs" && Boolean(credentialOf(c)))),
    limit: (cfg) => cfg.spend,
  },
  {
    name: "key",
    by: "credential",
    applies: (_m, p, c) => Boolean(credentialOf(c)) && !NOT_CALLER.test(p),
    limit: (cfg) => cfg.key,
  },
];

/** `onLimited` hears the rule's name for each 429 (metrics). */
export function rateRules(
  limiter: RateLimiter,
  cfg: RateLimitsConfig,
  trustProxy: boolean,
  onLimited: (rule: string) => void = () => {},
) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!cfg.enabled) return next();
    const method = c.req.method;
    const path = c.req.path;
    let tightest: Decision | undefined;
    for (const rule of RATE_RULES) {
      if (!rule.applies(method, path, c)) continue;
      const who =
        rule.by === "address"
          ? clientAddress(c, trustProxy)
          : credentialDigest((credentialOf(c) ?? "").replace(/^Bearer\s+/i, ""));
      const limit = rule.limit(cfg);
      const d = await limiter.take(`${rule.name}:${who}`, limit);
      if (!d.ok) {
        onLimited(rule.name);
        throw tooMany(d, limit.windowMs);
      }
      if (!tightest || d.remaining < tightest.remaining) tightest = d;
    }
    if (!tightest) return next();
    await withEarlyHeaders(c, rateHeaders(tightest), next);
  });
}
