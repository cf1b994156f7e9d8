/**
 * The price cap every spending operation takes: `max_price_cents`, the most the caller will pay
 * for this one call — a cap the agent sets, never the owner's consent (an agent key that must ask
 * spends only on its owner's approval: operations/spend-approval.ts). Its contract's `price` says what the call
 * will charge from its input alone, so the runner (operations/run.ts) refuses a call priced
 * above it before anything moves, and the MCP surface asks a key that must ask its owner first
 * (mcp/agreement.ts) with the same figures and the same sentence.
 */
import { z } from "@hono/zod-openapi";
import { displayCents } from "../domain/money.js";

/** What a spending call will take from the balance, known before it runs. */
export interface SpendQuote {
  cents: number;
  /** What is bought, for a person: "Restore wedding.mp4, 1:35, Enhanced". */
  what: string;
}

/** The largest price any operation charges in one call ($10,000): the field's bound. */
const MAX_PRICE_CENTS = 1_000_000;

/** The optional `max_price_cents` input of every spending operation. */
export const MaxPriceFields = {
  max_price_cents: z
    .number({ error: "must be a whole number of cents" })
    .int("must be a whole number of cents")
    .min(0, "must be at least 0")
    .max(MAX_PRICE_CENTS, `must be at most ${MAX_PRICE_CENTS}`)
    .optional()
    .meta({
      description:
        "A cap you set, in cents (never consent): a dearer call is refused (price_above_max), nothing charged.",
    }),
};

/** The question put to the owner: "Restore wedding.mp4, 1:35, Enhanced — $4.99 from your balance?" */
export function agreementQuestion(quote: SpendQuote): string {
  return `${quote.what} — ${displayCents(quote.cents)} from your balance?`;
}

/** "m:ss" (or "h:mm:ss") of a length in seconds, as a person reads a video's length. */
export function clockLength(seconds: number): string {
  const s = Math.round(seconds);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh > 0 ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}
