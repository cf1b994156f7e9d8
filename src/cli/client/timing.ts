/** Waiting: abortable sleeps and the back-off schedule every retry in the client shares. */
import { Interrupted, isTransient } from "./failures.js";

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Exponential back-off with jitter: ~0.5 s, 1 s, 2 s, 4 s, 8 s, capped at 15 s. */
export function backoffMs(attempt: number, baseMs = 500, capMs = 15_000): number {
  const exp = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  // ±20 % so many clients cut off by the same outage do not come back in lockstep.
  return Math.round(exp * (0.8 + Math.random() * 0.4));
}

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
