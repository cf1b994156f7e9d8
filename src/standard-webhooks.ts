/**
 * Standard Webhooks (standardwebhooks.com) signatures, both ways, in one place: kinora signs the
 * webhooks it sends (services/webhooks) and checks the ones model servers send it (Replicate's
 * signed prediction webhooks, engines/cog) with the same code.
 *
 *   webhook-id        the message id (the same on every retry of one message)
 *   webhook-timestamp Unix seconds
 *   webhook-signature space-separated `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`
 *
 * where the key is the bytes of the base64 after the secret's `whsec_` prefix. Written on
 * node:crypto; the tests hold it to the `standardwebhooks` package in both directions.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const PREFIX = "whsec_";

/** Deliveries older (or newer) than this are refused as possible replays (the standard's 5 min). */
export const WEBHOOK_TOLERANCE_SEC = 5 * 60;

/** Why a delivery's signature was not accepted (the message names the failed check). */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

/** Headers as fetch gives them, or as a plain record (node:http, a test). */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** One header's value by its lower-case name, from either kind of header source. */
export function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The HMAC key a `whsec_…` secret stands for; refuses a secret shorter than 16 bytes. */
function secretKey(secret: string): Buffer {
  const key = Buffer.from(
    secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret,
    "base64",
  );
  if (key.length < 16) throw new Error("A webhook secret must be whsec_ + base64 of ≥ 16 bytes.");
  return key;
}

/** A fresh secret: `whsec_` + base64 of 24 random bytes (the standard asks for 24–64). */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(24).toString("base64")}`;
}

/** The `v1,<base64>` signature of one message. */
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

/**
 * The three headers a signed delivery of `body` carries. `id` defaults to a new `msg_…` (a
 * sender retrying a message passes its id again); the timestamp is `nowMs`'s second.
 */
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
 * Checks a delivery against its raw body bytes: the headers are present, the timestamp is
 * within `toleranceSec` of `nowMs` either way, and one `v1` signature matches (compared in
 * constant time). Returns the message id (stable across retries) and the timestamp; throws
 * WebhookVerificationError.
 */
export function verifyWebhook(args: {
  headers: HeaderSource;
  body: string | Buffer;
  secret: string;
  nowMs?: number;
  toleranceSec?: number;
}): { id: string; timestamp: number } {
  const id = headerValue(args.headers, "webhook-id");
  const ts = headerValue(args.headers, "webhook-timestamp");
  const signatures = headerValue(args.headers, "webhook-signature");
  if (!id || !ts || !signatures) throw new WebhookVerificationError("Missing webhook headers.");
  if (!/^\d{1,12}$/.test(ts)) throw new WebhookVerificationError("Malformed webhook timestamp.");
  const timestamp = Number(ts);
  const ageSec = Math.floor((args.nowMs ?? Date.now()) / 1000) - timestamp;
  const tolerance = args.toleranceSec ?? WEBHOOK_TOLERANCE_SEC;
  if (ageSec > tolerance) throw new WebhookVerificationError("Webhook timestamp is too old.");
  if (ageSec < -tolerance) {
    throw new WebhookVerificationError("Webhook timestamp is in the future.");
  }
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
