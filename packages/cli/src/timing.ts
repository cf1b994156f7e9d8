/** Retrying the calls the SDK does not repeat on its own, on its back-off schedule. */
import { backoffMs, sleep } from "@kinora/client";
import { Interrupted, isTransient } from "./failures.js";

/**
 * Runs an idempotent request (start, cancel) again after a network error or 5xx, with
 * back-off, so a blip between upload and start does not strand a paid job.
 */
export async function retryTransient<T>(
  fn: () => Promise<T>,
  signal?: AbortSignal,
  attempts = 4,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (signal?.aborted) throw new Interrupted();
      if (attempt >= attempts || !isTransient(err)) throw err;
    }
    await sleep(backoffMs(attempt), signal).catch(() => {
      throw new Interrupted();
    });
  }
}
