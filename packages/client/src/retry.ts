/** Back-off and Retry-After: how long to wait before trying a call again, abortably. */

/** Retry policy of a client (or of one call). */
export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** First back-off step in ms (default 500; doubles each retry, ±20 % jitter). */
  retryBaseMs?: number;
  /** The longest wait a Retry-After may ask for before the call gives up instead (default 60 s). */
  maxRetryAfterMs?: number;
}

/** Exponential back-off with jitter, capped at 15 s. */
export function backoffMs(attempt: number, baseMs = 500): number {
  const exp = Math.min(15_000, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp * (0.8 + Math.random() * 0.4));
}

/** A Retry-After header in ms (delta-seconds or an HTTP date); undefined when absent or bad. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

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
