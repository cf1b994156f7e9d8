/**
 * One attempt of a claimed delivery, start to end: render the body (payload.ts), sign it with
 * the receiver's secret (an endpoint's own, or the wallet's default for a job's webhook_url),
 * check the receiver's URL again (DNS may have moved it somewhere private), POST it (send.ts),
 * and write the outcome: delivered on 2xx; another try with backoff and jitter on a timeout,
 * no answer, 5xx, 408 or 429 (honouring Retry-After) while the 3-day window lasts; failed for
 * good on any other answer (other 4xx, 3xx: redirects are not followed) or once the window
 * has passed.
 */
import { parseRetryAfter, retryableStatus, retryDelayMs } from "../../domain/webhooks.js";
import type { Db } from "../../jobs/definition.js";
import type { Signer } from "../../signing.js";
import { webhookHeaders } from "../../standard-webhooks.js";
import { type AttemptOutcome, type DeliveryRow, finishAttempt } from "./attempts.js";
import { endpointFailed, endpointSucceeded } from "./endpoint-health.js";
import { type JobViewKind, renderBody } from "./payload.js";
import { type ReceiverPolicy, ReceiverRefused, resolveReceiver } from "./receiver-url.js";
import { openSecret, walletSecret } from "./secrets.js";
import { type AttemptResult, postOnce } from "./send.js";

/** How attempts are timed (tests shorten them). */
export interface RetryTiming {
  timeoutMs: number;
  baseMs: number;
  capMs: number;
  windowMs: number;
}

export interface DeliverDeps {
  db: Db;
  clock: () => Date;
  signer: Signer;
  kinds: readonly JobViewKind[];
  policy: ReceiverPolicy;
  timing: RetryTiming;
  node: string;
  /** The CA of a local https receiver (tests). */
  caForTests?: Buffer;
  /** Told about every outcome and disabled endpoint (metrics). */
  report?: (e: { outcome: "delivered" | "retrying" | "failed" | "disabled" }) => void;
}

async function secretFor(deps: DeliverDeps, row: DeliveryRow): Promise<string> {
  if (row.endpoint_id === null) return walletSecret(deps, row.wallet_id);
  const endpoint = await deps.db
    .selectFrom("webhook_endpoints")
    .select("secret_sealed")
    .where("id", "=", row.endpoint_id)
    .executeTakeFirstOrThrow();
  return openSecret(deps.signer, endpoint.secret_sealed).plain;
}

async function attempt(deps: DeliverDeps, row: DeliveryRow): Promise<AttemptResult> {
  const event = await deps.db
    .selectFrom("webhook_events")
    .selectAll()
    .where("id", "=", row.event_id)
    .executeTakeFirstOrThrow();
  const body = await renderBody(deps.db, deps.kinds, event);
  const secret = await secretFor(deps, row);
  // The event's id on every attempt: receivers deduplicate on webhook-id.
  const headers = webhookHeaders(body, secret, { id: event.id, nowMs: deps.clock().getTime() });
  // Not part of the standard: which attempt this is, so a receiver can tell a retry.
  headers["webhook-attempt"] = String(row.attempts);
  let to: Awaited<ReturnType<typeof resolveReceiver>>;
  try {
    to = await resolveReceiver(row.url, deps.policy, "the receiver URL");
  } catch (err) {
    if (err instanceof ReceiverRefused) return { kind: "no_answer", error: err.message };
    throw err;
  }
  return postOnce(to, headers, body, {
    timeoutMs: deps.timing.timeoutMs,
    ...(deps.caForTests ? { ca: deps.caForTests } : {}),
  });
}

function outcomeOf(deps: DeliverDeps, row: DeliveryRow, result: AttemptResult): AttemptOutcome {
  const now = deps.clock();
  if (result.kind === "answer" && result.status >= 200 && result.status < 300) {
    return { state: "delivered", statusCode: result.status };
  }
  const statusCode = result.kind === "answer" ? result.status : null;
  const error = result.kind === "answer" ? `HTTP ${result.status}` : result.error;
  const retryable = result.kind === "no_answer" || retryableStatus(result.status);
  const retryAfterMs =
    result.kind === "answer" ? parseRetryAfter(result.retryAfter, now.getTime()) : null;
  const delay = retryDelayMs(row.attempts, { ...deps.timing, retryAfterMs });
  const retryAt = new Date(now.getTime() + delay);
  const deadline = new Date(row.created_at).getTime() + deps.timing.windowMs;
  if (retryable && retryAt.getTime() <= deadline) {
    return { state: "pending", retryAt, statusCode, error };
  }
  const why = retryable ? `${error}; retried for the whole window` : error;
  return { state: "failed", statusCode, error: why, exhausted: retryable };
}

/** Runs the attempt `row` was claimed for and writes its outcome. Never throws. */
export async function deliverClaimed(deps: DeliverDeps, row: DeliveryRow): Promise<AttemptOutcome> {
  let result: AttemptResult;
  try {
    result = await attempt(deps, row);
  } catch (err) {
    // Our side (rendering, a secret that no longer opens): retried like a receiver's failure.
    result = {
      kind: "no_answer",
      error: `not sent: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const outcome = outcomeOf(deps, row, result);
  const now = deps.clock();
  const written = await finishAttempt(deps.db, row, deps.node, outcome, now);
  if (!written) return outcome;
  deps.report?.({ outcome: outcome.state === "pending" ? "retrying" : outcome.state });
  if (row.endpoint_id !== null) {
    if (outcome.state === "delivered") await endpointSucceeded(deps.db, row.endpoint_id);
    else {
      const gaveUp = outcome.state === "failed" && outcome.exhausted ? row.id : undefined;
      const { windowMs } = deps.timing;
      if (await endpointFailed(deps.db, row.endpoint_id, now, windowMs, outcome.error, gaveUp)) {
        deps.report?.({ outcome: "disabled" });
      }
    }
  }
  return outcome;
}
