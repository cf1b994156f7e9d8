/**
 * Housekeeping that belongs to no feature: idempotency records past their 24 hours are purged
 * every few minutes (in batches, so one pass never holds the table for long).
 */
import type { BackgroundTask, Platform } from "./platform.js";
import { purgeIdempotencyRecords } from "./services/idempotency.js";

export function startCoreTasks(p: Platform, everyMs = 5 * 60_000): BackgroundTask {
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = purgeIdempotencyRecords(p).then(
      (n) => {
        if (n > 0) p.log.info("idempotency records purged", { records: n });
      },
      (err) => p.log.error("idempotency purge failed", { err }),
    );
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
