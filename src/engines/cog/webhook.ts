/**
 * Authenticating prediction webhooks.
 *
 * Replicate signs webhooks the Standard Webhooks way: headers `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature` (space-separated `v1,<base64>`
 * entries), each an HMAC-SHA256 of `${id}.${timestamp}.${body}` keyed with the base64 bytes
 * after the secret's `whsec_` prefix. A plain Cog container does not sign its webhooks, so
 * for those we put a per-prediction token in the webhook URL — a token kinora signs like every
 * other (src/signing.ts: purpose `cog-webhook`, an expiry, the signing key's id, so
 * SIGNING_SECRET rotates with SIGNING_SECRET_PREVIOUS). `handlePredictionWebhook` accepts
 * either, never neither: a request that carries a signature must have a valid one, whatever
 * its URL says.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { type ErrorCode, type ErrorStatus, statusOf } from "../../domain/error-codes.js";
import type { Signer } from "../../signing.js";
import { parsePrediction } from "./prediction.js";
import type { PredictionWaiter } from "./waiter.js";

export { PredictionWaiter, type PredictionWaiterOptions } from "./waiter.js";

/** Deliveries older (or newer) than this are refused as possible replays. */
const WEBHOOK_TOLERANCE_SEC = 5 * 60;
/** Prediction bodies can carry data-URL outputs; cap what we are willing to parse. */
const MAX_WEBHOOK_BODY_BYTES = 64 * 1024 * 1024;

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function secretKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
  if (key.length < 16) throw new Error("The webhook secret must be whsec_ + base64 of ≥16 bytes.");
  return key;
}

/** A new secret in Replicate's format: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** The `v1,<base64>` signature of one delivery. */
export function signWebhook(args: {
  id: string;
  timestamp: number | string;
  body: string | Buffer;
  secret: string;
}): string {
  const mac = createHmac("sha256", secretKey(args.secret))
    .update(`${args.id}.${args.timestamp}.`)
    .update(args.body)
    .digest("base64");
  return `v1,${mac}`;
}

/** The three headers of a signed delivery (what Replicate sends; used by our fake). */
export function webhookHeaders(
  body: string | Buffer,
  secret: string,
  opts: { id?: string; nowMs?: number } = {},
): Record<string, string> {
  const id = opts.id ?? `msg_${randomBytes(12).toString("hex")}`;
  const timestamp = Math.floor((opts.nowMs ?? Date.now()) / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signWebhook({ id, timestamp, body, secret }),
  };
}

/**
 * Verifies a signed delivery against the raw body bytes. Throws WebhookVerificationError;
 * returns the message id (stable across retries) and timestamp.
 */
export function verifyWebhook(args: {
  headers: HeaderSource;
  body: string | Buffer;
  secret: string;
  nowMs?: number;
  toleranceSec?: number;
}): { id: string; timestamp: number } {
  const id = header(args.headers, "webhook-id");
  const ts = header(args.headers, "webhook-timestamp");
  const signatures = header(args.headers, "webhook-signature");
  if (!id || !ts || !signatures) throw new WebhookVerificationError("Missing webhook headers.");
  if (!/^\d{1,12}$/.test(ts)) throw new WebhookVerificationError("Malformed webhook timestamp.");
  const timestamp = Number(ts);
  const ageSec = Math.floor((args.nowMs ?? Date.now()) / 1000) - timestamp;
  const tolerance = args.toleranceSec ?? WEBHOOK_TOLERANCE_SEC;
  if (ageSec > tolerance) throw new WebhookVerificationError("Webhook timestamp is too old.");
  if (ageSec < -tolerance)
    throw new WebhookVerificationError("Webhook timestamp is in the future.");
  const expected = Buffer.from(
    signWebhook({ id, timestamp: ts, body: args.body, secret: args.secret }).slice(3),
    "base64",
  );
  for (const entry of signatures.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
    const given = Buffer.from(entry.slice(comma + 1), "base64");
    if (given.length === expected.length && timingSafeEqual(given, expected)) {
      return { id, timestamp };
    }
  }
  throw new WebhookVerificationError("No valid webhook signature.");
}

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
  if (header(args.headers, "webhook-signature") !== undefined) {
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
