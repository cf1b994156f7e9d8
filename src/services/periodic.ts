/**
 * A background pass run now and then every `everyMs` (sweepers, purges, payment confirmers).
 * The next pass is scheduled when the last one ends, so passes never overlap however long one
 * takes, and stop() waits for the pass that is running. A pass reports its own failures; one
 * that throws anyway is logged here and the next still runs.
 */
import type { Logger } from "../logger.js";
import type { BackgroundTask } from "./deps.js";

/** Runs `pass` every `everyMs` (never two at once) until stopped. */
export function startPeriodic(
  everyMs: number,
  pass: () => Promise<void>,
  log: Pick<Logger, "error">,
  what: string,
): BackgroundTask {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = pass()
      .catch((err) => log.error(`${what} failed`, { err }))
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(tick, everyMs);
        timer.unref();
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
