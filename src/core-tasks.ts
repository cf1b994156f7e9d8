/**
 * Housekeeping that belongs to no feature, every few minutes: idempotency records past their
 * 24 hours are purged (in batches, so one pass never holds the table for long), and so are
 * rate-limit windows that ended a day ago (one row per bucket and window on PostgreSQL, one
 * map entry per bucket in process): without a purge each grows with every caller seen. Purchase
 * approvals decided or expired 30 days ago go too (services/approvals-purge.ts).
 * Records a feature owns are purged by that feature's own task (console sessions, OAuth codes
 * and tokens).
 */

import type { BackgroundTask, Platform } from "./feature.js";
import { PURGE_EVERY_MS, type Purge, startPurges } from "./features/purges.js";
import { purgeOldApprovals } from "./services/approvals-purge.js";
import { purgeIdempotencyRecords } from "./services/idempotency.js";

const CORE_PURGES: readonly Purge[] = [
  { what: "idempotency records", run: (p) => purgeIdempotencyRecords(p) },
  { what: "rate-limit windows", run: (p) => p.rateLimiter.purge() },
  { what: "finished purchase approvals", run: (p) => purgeOldApprovals(p) },
];

export function startCoreTasks(p: Platform, everyMs = PURGE_EVERY_MS): BackgroundTask {
  return startPurges(p, CORE_PURGES, "housekeeping", everyMs);
}
