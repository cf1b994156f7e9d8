/**
 * Free previews are counted per wallet, an hour at a time, in the shared rate limiter the
 * operations count in (its store: the database on PostgreSQL, shared by every node). This
 * count holds whether or not RATE_LIMITS is on: a preview is free work, and this is what keeps
 * it a preview. (Per address, REST counts every create in the `create` bucket.)
 */
import { ApiError } from "../../../domain/errors.js";
import { rateHeaders } from "../../../services/rate-buckets.js";
import type { PreviewDeps } from "./deps.js";
import { previewSettings } from "./settings.js";

const HOUR_MS = 3600_000;

/** Counts one preview of `walletId`; the 429 (with Retry-After) when the hour's are used. */
export async function takePreview(deps: PreviewDeps, walletId: string): Promise<void> {
  const { perHour } = previewSettings(deps.config.env);
  if (perHour === 0) {
    throw new ApiError(
      "rate_limited",
      "Free previews are switched off on this server (PREVIEW_PER_HOUR=0).",
    );
  }
  const d = await deps.rateLimiter.take(`preview:${walletId}`, { max: perHour, windowMs: HOUR_MS });
  if (d.ok) return;
  throw new ApiError(
    "rate_limited",
    `Free previews: at most ${perHour} an hour for this wallet; the next one in ${d.resetSec} s.`,
    {},
    { headers: { ...rateHeaders(d), "Retry-After": String(d.resetSec) } },
  );
}
