/** Retrying the calls the SDK does not repeat on its own, on its back-off schedule. */
import { backoffMs, sleep } from "@kinora/client";
import { Interrupted, isTransient } from "./failures.js";
import type { ApiClient } from "./http.js";

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

/** How long starting a paid job may take, Ctrl-C or not. */
const START_TIMEOUT_MS = 60_000;

/**
 * Starts a job whose file has arrived (`start` is idempotent: retried on a blip), and finishes
 * that even when Ctrl-C comes meanwhile — one short request, so a paid, uploaded job is never
 * left unstarted by a key pressed at the wrong moment. The Ctrl-C is honoured by the next step
 * (following the job), which sees its signal already aborted.
 */
export async function startPaidJob<T>(
  api: ApiClient,
  start: (api: ApiClient) => Promise<T>,
): Promise<T> {
  const own = api.withSignal(AbortSignal.timeout(START_TIMEOUT_MS));
  return retryTransient(() => start(own));
}
