/**
 * Periodic purges of records that expire: each pass runs every purge, logs how many records
 * each removed, and logs (without stopping the others) a purge that fails. Core housekeeping
 * (core-tasks.ts) and the features that own expiring records (the console's sessions, the
 * connected apps' OAuth codes and tokens) each run their own.
 */
import type { BackgroundTask, Platform } from "../feature.js";
import { startPeriodic } from "../services/periodic.js";

/** One kind of expiring record and how to purge it; `run` answers how many went. */
export interface Purge {
  what: string;
  run: (p: Platform) => Promise<number>;
}

/** How often purges run by default: records linger at most this long past their expiry. */
export const PURGE_EVERY_MS = 5 * 60_000;

/** Runs `purges` every `everyMs` (and once now) as the background task called `name`. */
export function startPurges(
  p: Platform,
  purges: readonly Purge[],
  name: string,
  everyMs = PURGE_EVERY_MS,
): BackgroundTask {
  const pass = async () => {
    await Promise.all(
      purges.map(async (purge) => {
        try {
          const n = await purge.run(p);
          if (n > 0) p.log.info(`${purge.what} purged`, { records: n });
        } catch (err) {
          p.log.error(`${purge.what}: purge failed`, { err });
        }
      }),
    );
  };
  return startPeriodic(everyMs, pass, p.log, name);
}
