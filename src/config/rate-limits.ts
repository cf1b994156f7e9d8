/** Requests per window for each limited route family: RATE_LIMITS and RATE_LIMIT_*. */
import { z } from "zod";

const perWindow = (max: number, fallback: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback);

/** The rate-limit settings' part of the environment's schema. */
export const RateLimitsEnv = z.object({
  RATE_LIMITS: z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
  RATE_LIMIT_REGISTER_PER_HOUR: perWindow(100_000, 30),
  RATE_LIMIT_SIGNIN_PER_MIN: perWindow(10_000, 10),
  RATE_LIMIT_CREATE_PER_MIN: perWindow(100_000, 30),
  RATE_LIMIT_QUOTE_PER_MIN: perWindow(1_000_000, 300),
  RATE_LIMIT_SPEND_PER_MIN: perWindow(1_000_000, 120),
  RATE_LIMIT_KEY_PER_MIN: perWindow(10_000_000, 6000),
});

/** Requests per window for each limited route family (see README, Rate limits). */
export interface RateLimitsConfig {
  /** RATE_LIMITS=off turns every limit off (behind a limiter of the operator's own). */
  enabled: boolean;
  oauthRegister: { max: number; windowMs: number };
  signIn: { max: number; windowMs: number };
  /** Unauthenticated creates (wallets, checkout-paid jobs, checkouts), per client address. */
  create: { max: number; windowMs: number };
  /** Quotes, per client address. */
  quote: { max: number; windowMs: number };
  /** Spending requests (creates, top-ups, new keys, MCP spending tools), per key. */
  spend: { max: number; windowMs: number };
  /** Every request made with a key or token, per key. */
  key: { max: number; windowMs: number };
}

/** The limits, each with its window (registrations per hour, the rest per minute). */
export function rateLimitsConfig(e: z.infer<typeof RateLimitsEnv>): RateLimitsConfig {
  return {
    enabled: e.RATE_LIMITS === "on",
    oauthRegister: { max: e.RATE_LIMIT_REGISTER_PER_HOUR, windowMs: 3600_000 },
    signIn: { max: e.RATE_LIMIT_SIGNIN_PER_MIN, windowMs: 60_000 },
    create: { max: e.RATE_LIMIT_CREATE_PER_MIN, windowMs: 60_000 },
    quote: { max: e.RATE_LIMIT_QUOTE_PER_MIN, windowMs: 60_000 },
    spend: { max: e.RATE_LIMIT_SPEND_PER_MIN, windowMs: 60_000 },
    key: { max: e.RATE_LIMIT_KEY_PER_MIN, windowMs: 60_000 },
  };
}
