/** The exact price of a restore (POST /cloud/quote, MCP quote_restore): one function for both. */

import type { RestoreLimits } from "../rules/limits.js";
import {
  DEFAULT_QUALITY,
  priceRestore,
  type RestoreQuality,
  restoreLimitsView,
} from "../rules/pricing.js";
import { checkRestoreRequest } from "./create.js";

interface QuoteInput {
  durationSec: number;
  quality?: RestoreQuality | undefined;
  width?: number | undefined;
  height?: number | undefined;
}

/**
 * A restore's price for a length, quality and size, with the server's limits (refused beyond
 * them).
 */
export function quoteRestore(limits: RestoreLimits, input: QuoteInput) {
  checkRestoreRequest(input, limits);
  const price = priceRestore({ ...input, quality: input.quality ?? DEFAULT_QUALITY });
  return {
    amount_cents: price.amountCents,
    display: price.display,
    quality: price.quality,
    quality_label: price.label,
    duration_sec: input.durationSec,
    extra_minutes: price.extraMinutes,
    high_res: price.highRes,
    limits: restoreLimitsView(limits),
  };
}
