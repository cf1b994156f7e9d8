/**
 * The webhook events kinora sends (docs/webhooks.md): the names a caller filters on and the
 * rules that say which job change is which event. Pure: the job engine and the webhook
 * services read them; the wire format lives in services/webhooks.
 */

/** What a job's own `webhook_events` filter names (Replicate-style short names). */
export const JOB_EVENTS = ["started", "progress", "completed"] as const;
/** An event a job's own webhook may ask for (started, progress, completed). */
export type JobEvent = (typeof JOB_EVENTS)[number];

/** Every event type an endpoint may subscribe to (the `type` of each payload). */
export const WEBHOOK_EVENT_TYPES = [
  "job.started",
  "job.progress",
  "job.completed",
  "wallet.credited",
  "key.limit_reached",
  "purchase.approval_requested",
  "purchase.approved",
  "purchase.declined",
] as const;
/** The `type` of a webhook payload. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The one event that is only ever sent on request, to one endpoint ("send test event"). */
export const TEST_EVENT_TYPE = "webhook.test";

/** A job's events when its caller names none: its final state only. */
export const DEFAULT_JOB_EVENTS: readonly JobEvent[] = ["completed"];
/** An endpoint's events when its owner names none: every job's final state and the wallet's. */
export const DEFAULT_ENDPOINT_EVENTS: readonly WebhookEventType[] = [
  "job.completed",
  "wallet.credited",
  "key.limit_reached",
];

/** The full type of a job event. */
export const jobEventType = (event: JobEvent): WebhookEventType => `job.${event}`;

/**
 * A move completes a job when it enters a final status from one that is not: every job gets
 * exactly one `completed` (a done job that later expires by retention gets none more).
 */
export function movesToFinal(
  move: { from: readonly string[]; to: string },
  final: readonly string[],
): boolean {
  return final.includes(move.to) && !move.from.some((s) => final.includes(s));
}

/** Progress is sent at most once per step (5 %): heartbeats repeat the same value often. */
const PROGRESS_STEP = 0.05;

/** Whether a progress report from `before` to `after` crosses a step worth an event. */
export function progressCrossesStep(before: number | null, after: number | null): boolean {
  if (after === null) return false;
  const step = (p: number) => Math.floor(p / PROGRESS_STEP + 1e-9);
  return before === null ? after > 0 : step(after) > step(before);
}

/** How long a delivery is retried, and after how long of nothing but failures an endpoint is disabled. */
export const WEBHOOK_RETRY_WINDOW_MS = 3 * 24 * 3600_000;
/** The deadline of one attempt (connect, send, answer). */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * When to try again after failed attempt `attempt` (1-based): exponential from `baseMs`, capped
 * at `capMs`, with ±50 % jitter (so receivers coming back are not hit by every sender at once);
 * a Retry-After is honoured when longer (capped too).
 */
export function retryDelayMs(
  attempt: number,
  opts: { baseMs: number; capMs: number; retryAfterMs?: number | null },
  random: () => number = Math.random,
): number {
  const exp = Math.min(opts.capMs, opts.baseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.round(exp * (0.5 + random()));
  const wanted = opts.retryAfterMs ?? 0;
  return Math.min(opts.capMs, Math.max(jittered, wanted));
}

/** Whether an HTTP answer is worth another attempt: timeouts, 5xx, 408 and 429 are. */
export function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** Retry-After as milliseconds (seconds or an HTTP date), or null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
