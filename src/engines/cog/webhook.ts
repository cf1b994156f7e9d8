/**
 * Authenticating prediction webhooks.
 *
 * Replicate signs webhooks the Standard Webhooks way, checked by src/standard-webhooks.ts (the
 * module that also signs the webhooks kinora sends). A plain Cog container does not sign its webhooks, so
 * for those we put a per-prediction token in the webhook URL — a token kinora signs like every
 * other (src/signing.ts: purpose `cog-webhook`, an expiry, the signing key's id, so
 * SIGNING_SECRET rotates with SIGNING_SECRET_PREVIOUS). `handlePredictionWebhook` accepts
 * either, never neither: a request that carries a signature must have a valid one, whatever
 * its URL says.
 */
import { type ErrorCode, type ErrorStatus, statusOf } from "../../domain/error-codes.js";
import type { Signer } from "../../signing.js";
import { type HeaderSource, headerValue, verifyWebhook } from "../../standard-webhooks.js";
import { parsePrediction } from "./prediction.js";
import type { PredictionWaiter } from "./waiter.js";

export { PredictionWaiter, type PredictionWaiterOptions } from "./waiter.js";

/** Prediction bodies can carry data-URL outputs; cap what we are willing to parse. */
const MAX_WEBHOOK_BODY_BYTES = 64 * 1024 * 1024;

/** What a webhook URL token is signed for: it stands for one prediction's deliveries only. */
const URL_TOKEN_PURPOSE = "cog-webhook";

/**
 * How long a URL token outlives its prediction's time-out: a model server retries a delivery
 * that failed (the final one matters most) for a while, and a late retry must still be
 * recognised — as a duplicate — rather than refused; past that nothing waits for it.
 */
export const WEBHOOK_TOKEN_GRACE_MS = 60 * 60_000;

/**
 * The webhook URL to give a model server for one prediction: `webhookUrl` plus `prediction`
 * and a `token` signed for it by `tokens` (the platform's signer), valid until `expiresAtMs`
 * (the prediction's own deadline plus WEBHOOK_TOKEN_GRACE_MS), so unsigned (plain Cog)
 * deliveries are authenticated too.
 */
export function webhookUrlFor(
  webhookUrl: string,
  predictionId: string,
  tokens: Signer,
  expiresAtMs: number,
): string {
  const url = new URL(webhookUrl);
  url.searchParams.set("prediction", predictionId);
  url.searchParams.set(
    "token",
    tokens.sign(URL_TOKEN_PURPOSE, { prediction: predictionId }, expiresAtMs),
  );
  return url.href;
}

/** The prediction a URL's token was signed for, when it is genuine and unexpired. */
function validUrlToken(url: URL, tokens: Signer, nowMs: number): string | null {
  const id = url.searchParams.get("prediction");
  const token = url.searchParams.get("token");
  if (!id || !token) return null;
  const claims = tokens.verify<{ prediction?: unknown }>(URL_TOKEN_PURPOSE, token, nowMs);
  return claims?.prediction === id ? id : null;
}

/**
 * Where POST /hooks/cog/{engine} delivers one engine's predictions, the secret signed
 * deliveries are checked with, and the signer of the URL tokens of unsigned ones.
 */
export interface CogHookTarget {
  waiter: PredictionWaiter;
  secret: string | undefined;
  tokens: Signer;
}

interface WebhookResult {
  status: 200 | ErrorStatus;
  body: { detail?: string; code?: ErrorCode; applied?: boolean };
}

/** A refused delivery: the API's error body, its status from the code's row. */
function refusal(code: ErrorCode, detail: string): WebhookResult {
  return { status: statusOf(code), body: { detail, code } };
}

/**
 * Handles one webhook request end to end: authenticate (signature or URL token), parse the
 * prediction, hand it to the waiter. Answers 2xx for duplicates so the sender stops
 * retrying; 401 for anything unauthenticated, without saying which check failed.
 */
export function handlePredictionWebhook(args: {
  headers: HeaderSource;
  rawBody: Buffer | string;
  /** The request URL (absolute, or path + query). */
  url: string;
  secret: string | undefined;
  /** Checks URL tokens (webhookUrlFor); without it only signed deliveries are accepted. */
  tokens?: Signer;
  waiter: PredictionWaiter;
  nowMs?: number;
}): WebhookResult {
  if (!args.secret) return refusal("unavailable", "Prediction webhooks are not configured.");
  if (Buffer.byteLength(args.rawBody) > MAX_WEBHOOK_BODY_BYTES) {
    return refusal("too_large", "Webhook body is too large.");
  }
  const unauthorized = refusal("unauthorized", "Webhook not authenticated.");
  const url = new URL(args.url, "http://webhook.invalid");
  let boundId: string | null = null;
  if (headerValue(args.headers, "webhook-signature") !== undefined) {
    try {
      verifyWebhook({
        headers: args.headers,
        body: args.rawBody,
        secret: args.secret,
        nowMs: args.nowMs,
      });
    } catch {
      return unauthorized;
    }
  } else {
    boundId = args.tokens ? validUrlToken(url, args.tokens, args.nowMs ?? Date.now()) : null;
    if (!boundId) return unauthorized;
  }
  let json: unknown;
  try {
    json = JSON.parse(args.rawBody.toString());
  } catch {
    return refusal("invalid_request", "Webhook body is not JSON.");
  }
  const prediction = parsePrediction(json, boundId ?? undefined);
  if (!prediction) return refusal("invalid_request", "Webhook body is not a prediction.");
  // A URL token is only good for the prediction it was minted for.
  if (boundId && prediction.id !== boundId) return unauthorized;
  return { status: 200, body: { applied: args.waiter.deliver(prediction) } };
}
