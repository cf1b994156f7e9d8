/**
 * Job error sentences shared by every kind. A retryable failure's message promises a retry
 * ("…; the clip will be retried."); when it was the last attempt that promise is false, so the
 * final error drops it before saying the job was stopped and refunded.
 */

/** "…; the clip will be retried." — whatever the kind calls its job (its noun). */
const RETRY_PROMISE = /[;,]?\s*the [a-z][a-z ]{0,40} will be retried\.?$/i;

/** The message of a retryable failure without its promise of a retry, ending as a sentence. */
export function withoutRetryPromise(message: string): string {
  const trimmed = message.trim().replace(RETRY_PROMISE, "");
  return trimmed === "" || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
