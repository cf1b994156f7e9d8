/**
 * Housekeeping that belongs to no feature, every few minutes: idempotency records past their
 * 24 hours are purged (in batches, so one pass never holds the table for long), and so are
 * rate-limit windows that ended a day ago (one row per bucket and window on PostgreSQL, one
 * map entry per bucket in process), expired console sessions, and OAuth codes and tokens a day
 * past expiry: without a purge each grows with every caller, sign-in and connection seen.
 */

import { purgeExpiredOAuth } from "./oauth/tokens.js";
import type { BackgroundTask, Platform } from "./platform.js";
import { purgeIdempotencyRecords } from "./services/idempotency.js";
import { startPeriodic } from "./services/periodic.js";
import { purgeSessions } from "./web/session.js";

type Purge = { what: string; run: (p: Platform) => Promise<number> };

const PURGES: readonly Purge[] = [
  { what: "idempotency records", run: (p) => purgeIdempotencyRecords(p) },
  { what: "rate-limit windows", run: (p) => p.rateLimiter.purge() },
  { what: "expired web sessions", run: (p) => purgeSessions(p) },
  { what: "expired OAuth codes and tokens", run: (p) => purgeExpiredOAuth(p) },
];

export function startCoreTasks(p: Platform, everyMs = 5 * 60_000): BackgroundTask {
  const pass = async () => {
    await Promise.all(
      PURGES.map(async (purge) => {
        try {
          const n = await purge.run(p);
          if (n > 0) p.log.info(`${purge.what} purged`, { records: n });
        } catch (err) {
          p.log.error(`${purge.what}: purge failed`, { err });
        }
      }),
    );
  };
  return startPeriodic(everyMs, pass, p.log, "housekeeping");
}
