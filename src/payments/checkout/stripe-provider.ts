/**
 * Stripe Checkout behind the CheckoutProvider seam: one hosted payment page per checkout,
 * outcomes from signed webhooks (see stripe-webhook.ts), refunds against the payment intent.
 */
import Stripe from "stripe";
import {
  type CheckoutProvider,
  CheckoutProviderError,
  type CheckoutSession,
  type CreateSessionInput,
  type PaidEvent,
  type RefundInput,
  type RefundResult,
} from "./provider.js";
import { parseStripeWebhook } from "./stripe-webhook.js";

export { parseStripeWebhook, WebhookSignatureError } from "./stripe-webhook.js";

/** Stripe's keys, API base (a local fake in tests) and clock. */
export interface StripeProviderOptions {
  secretKey: string;
  /** whsec_… of the webhook endpoint; used by parseWebhook. */
  webhookSecret: string;
  /** Test seam: send API calls to a local fake instead of api.stripe.com. */
  apiBase?: { host: string; port: number; protocol: "http" | "https" };
  /** Per attempt; the SDK's own default (80 s) would hold a request handler far too long. */
  timeoutMs?: number;
  /** SDK retries reuse our idempotency key, so they cannot double-charge or double-refund. */
  maxNetworkRetries?: number;
  clock?: () => Date;
}

/** Stripe Checkout as a CheckoutProvider, with its webhook parser. */
export interface StripeCheckoutProvider extends CheckoutProvider {
  readonly kind: "stripe";
  /** parseStripeWebhook with this provider's secret and clock. */
  parseWebhook(rawBody: string, signatureHeader: string | undefined): PaidEvent;
}

/** Stripe accepts expires_at 30 min to 24 h after creation, measured on its own clock. */
const MIN_EXPIRY_MS = 30 * 60_000;
const MAX_EXPIRY_MS = 24 * 60 * 60_000;
/** Keeps a clamped expiry inside Stripe's window despite clock skew and request latency. */
const EXPIRY_MARGIN_MS = 2 * 60_000;

// Stripe's documented limits; checked here so a bad input fails fast with a clear message.
const MAX_METADATA_KEYS = 50;
const MAX_METADATA_KEY_CHARS = 40;
const MAX_METADATA_VALUE_CHARS = 500;
const MAX_REFERENCE_CHARS = 200;
const MAX_IDEMPOTENCY_KEY_CHARS = 255;
/** Stripe's minimum charge in USD. */
const MIN_AMOUNT_CENTS = 50;
const MAX_AMOUNT_CENTS = 99_999_999;

/** Stripe Checkout over the official SDK. */
export function createStripeProvider(options: StripeProviderOptions): StripeCheckoutProvider {
  const clock = options.clock ?? (() => new Date());
  const stripe = new Stripe(options.secretKey, {
    timeout: options.timeoutMs ?? 20_000,
    maxNetworkRetries: options.maxNetworkRetries ?? 2,
    ...(options.apiBase ?? {}),
  });

  return {
    kind: "stripe",
    // Hosted Checkout's pages (session.url) are always on this origin.
    pageOrigin: () => "https://checkout.stripe.com",
    async createSession(input: CreateSessionInput): Promise<CheckoutSession> {
      const params = buildSessionParams(input, clock());
      const session = await call("checkout session creation", () =>
        stripe.checkout.sessions.create(params, { idempotencyKey: input.idempotencyKey }),
      );
      if (!session.url) {
        // Only embedded/custom UI modes omit the url; we always ask for the hosted page.
        throw new CheckoutProviderError("Stripe returned a checkout session without a url", false);
      }
      return {
        providerSessionId: session.id,
        url: session.url,
        expiresAt: session.expires_at ? new Date(session.expires_at * 1000) : null,
      };
    },

    async refund(input: RefundInput): Promise<RefundResult> {
      checkRefundInput(input);
      const refund = await call("refund", () =>
        stripe.refunds.create(
          {
            payment_intent: input.providerPaymentId,
            amount: input.amountCents,
            metadata: { reason: input.reason.slice(0, MAX_METADATA_VALUE_CHARS) },
          },
          { idempotencyKey: input.idempotencyKey },
        ),
      );
      return { refundId: refund.id, status: refund.status ?? "pending" };
    },

    parseWebhook(rawBody, signatureHeader) {
      return parseStripeWebhook(rawBody, signatureHeader, options.webhookSecret, 300, clock());
    },
  };
}

/** The Checkout Session request for one hosted, one-line-item card payment. */
function buildSessionParams(
  input: CreateSessionInput,
  now: Date,
): Stripe.Checkout.SessionCreateParams {
  checkSessionInput(input);
  // The reference rides in metadata too, so it survives onto the payment intent and its
  // charges and refunds, whose events carry no client_reference_id.
  const metadata = { ...input.metadata, reference: input.reference };
  return {
    mode: "payment",
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: input.currency,
          unit_amount: input.amountCents,
          product_data: { name: input.description },
        },
      },
    ],
    client_reference_id: input.reference,
    metadata,
    payment_intent_data: { metadata },
    ...(input.email ? { customer_email: input.email } : {}),
    success_url: withSessionIdPlaceholder(input.successUrl),
    cancel_url: input.cancelUrl,
    ...(input.expiresAt ? { expires_at: clampExpirySec(input.expiresAt, now) } : {}),
  };
}

/**
 * Adds `session_id={CHECKOUT_SESSION_ID}` to the query, before any fragment. Done on the string:
 * URL serialisation would percent-encode the braces and Stripe would no longer substitute them.
 */
export function withSessionIdPlaceholder(url: string): string {
  if (url.includes("{CHECKOUT_SESSION_ID}")) return url;
  const hashAt = url.indexOf("#");
  const base = hashAt === -1 ? url : url.slice(0, hashAt);
  const fragment = hashAt === -1 ? "" : url.slice(hashAt);
  const separator = !base.includes("?") ? "?" : base.endsWith("?") || base.endsWith("&") ? "" : "&";
  return `${base}${separator}session_id={CHECKOUT_SESSION_ID}${fragment}`;
}

/** Unix seconds inside Stripe's accepted window (30 min .. 24 h from now, with a margin). */
export function clampExpirySec(expiresAt: Date, now: Date): number {
  const earliest = now.getTime() + MIN_EXPIRY_MS + EXPIRY_MARGIN_MS;
  const latest = now.getTime() + MAX_EXPIRY_MS - EXPIRY_MARGIN_MS;
  const clamped = Math.min(latest, Math.max(earliest, expiresAt.getTime()));
  return Math.floor(clamped / 1000);
}

function checkSessionInput(input: CreateSessionInput): void {
  const { amountCents, reference, metadata } = input;
  if (!Number.isInteger(amountCents) || amountCents < MIN_AMOUNT_CENTS) {
    refuse(`amountCents must be an integer of at least ${MIN_AMOUNT_CENTS} (Stripe's minimum)`);
  }
  if (amountCents > MAX_AMOUNT_CENTS) refuse(`amountCents must be at most ${MAX_AMOUNT_CENTS}`);
  if (!reference || reference.length > MAX_REFERENCE_CHARS) {
    refuse(`reference must be 1 to ${MAX_REFERENCE_CHARS} characters`);
  }
  if (!input.description.trim()) refuse("description must not be empty");
  for (const [name, url] of [
    ["successUrl", input.successUrl],
    ["cancelUrl", input.cancelUrl],
  ] as const) {
    if (!/^https?:\/\/[^/\s]+/i.test(url)) refuse(`${name} must be an absolute http(s) URL`);
  }
  const keys = Object.keys(metadata);
  if (keys.length + 1 > MAX_METADATA_KEYS) {
    refuse(`metadata may have at most ${MAX_METADATA_KEYS - 1} keys (one is kept for reference)`);
  }
  for (const key of keys) {
    if (!key || key.length > MAX_METADATA_KEY_CHARS || /[[\]]/.test(key)) {
      refuse(
        `metadata key "${key}" must be 1 to ${MAX_METADATA_KEY_CHARS} characters, no brackets`,
      );
    }
    if ((metadata[key] ?? "").length > MAX_METADATA_VALUE_CHARS) {
      refuse(`metadata value for "${key}" must be at most ${MAX_METADATA_VALUE_CHARS} characters`);
    }
  }
  checkIdempotencyKey(input.idempotencyKey);
}

function checkRefundInput(input: RefundInput): void {
  if (!input.providerPaymentId) refuse("providerPaymentId is required to refund");
  if (!Number.isInteger(input.amountCents) || input.amountCents <= 0) {
    refuse("amountCents must be a positive integer");
  }
  checkIdempotencyKey(input.idempotencyKey);
}

function checkIdempotencyKey(key: string): void {
  if (!key || key.length > MAX_IDEMPOTENCY_KEY_CHARS) {
    refuse(`idempotencyKey must be 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} characters`);
  }
}

function refuse(message: string): never {
  throw new CheckoutProviderError(message, false, "invalid_input");
}

/** Runs one SDK call, turning Stripe's errors into CheckoutProviderError. */
async function call<T>(action: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw toProviderError(err, action);
  }
}

function toProviderError(err: unknown, action: string): unknown {
  // Anything that is not a Stripe error is a bug of ours: let it surface as itself.
  if (!(err instanceof Stripe.errors.StripeError)) return err;
  const status = err.statusCode ?? 0;
  // Connection failures and timeouts leave the outcome unknown; a retry with the same
  // idempotency key either replays the first result or performs the call once.
  const retryable =
    err instanceof Stripe.errors.StripeConnectionError ||
    err instanceof Stripe.errors.StripeRateLimitError ||
    err instanceof Stripe.errors.StripeAPIError ||
    status === 409 ||
    status >= 500;
  const code = err.code ?? err.rawType;
  return new CheckoutProviderError(`Stripe ${action} failed: ${err.message}`, retryable, code, {
    cause: err,
  });
}
