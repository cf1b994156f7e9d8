/**
 * The card checkout seam. Services create a hosted checkout for a top-up or a pay-per-job
 * restore, learn the outcome from a signed webhook (mapped to PaidEvent), and refund through
 * the same provider. Two implementations: Stripe Checkout, and the built-in test checkout.
 */

export interface CreateSessionInput {
  /** Our checkout id (co_…); comes back on every event as `reference`. */
  reference: string;
  amountCents: number;
  currency: "usd";
  /** Shown to the payer as the line item name. */
  description: string;
  email?: string;
  successUrl: string;
  cancelUrl: string;
  metadata: Record<string, string>;
  /** Providers clamp this to what they accept (Stripe: 30 min to 24 h from now). */
  expiresAt?: Date;
  /** Same key + same input returns the same session instead of opening a second one. */
  idempotencyKey: string;
}

/** A hosted checkout opened at the provider: its id, link and expiry. */
export interface CheckoutSession {
  providerSessionId: string;
  /** Where to send the person paying. */
  url: string;
  expiresAt: Date | null;
}

type PaidEventType = "checkout.completed" | "checkout.expired" | "refund.updated" | "ignored";

/** A provider's event, as the payment services act on it. */
export interface PaidEvent {
  /** The provider's event id: store it under a unique key so redeliveries are no-ops. */
  eventId: string;
  type: PaidEventType;
  providerSessionId?: string;
  /** Stripe's payment_intent: what `refund` needs later. */
  providerPaymentId?: string;
  /**
   * checkout.*: the session total. refund.updated: the refund's amount when the event carries a
   * refund object, or the total refunded so far on the charge when it carries a charge.
   */
  amountCents?: number;
  /** Our reference (client_reference_id, else metadata.reference). */
  reference?: string;
  /** Credit only when true: a completed checkout may still be awaiting an async payment. */
  paid?: boolean;
  /** refund.updated from a refund object: its id and status (pending, succeeded, failed…). */
  refundId?: string;
  refundStatus?: string;
  createdAt: Date;
}

/** A refund to make at the provider, idempotent on its key. */
export interface RefundInput {
  providerPaymentId: string;
  amountCents: number;
  reason: string;
  idempotencyKey: string;
}

/** The provider's refund id and status. */
export interface RefundResult {
  refundId: string;
  /** Provider status; for Stripe: pending, requires_action, succeeded, failed or canceled. */
  status: string;
}

/** The card checkout seam: open a session, refund; Stripe and the test checkout implement it. */
export interface CheckoutProvider {
  readonly kind: "stripe" | "test";
  /**
   * The origin its hosted checkout pages live on: a page whose form leads there (the console's
   * top-up) must allow it in its CSP form-action, or the browser silently stops the redirect.
   */
  pageOrigin(): string;
  createSession(input: CreateSessionInput): Promise<CheckoutSession>;
  /** Refund a captured payment in full or part; idempotent on idempotencyKey. */
  refund(input: RefundInput): Promise<RefundResult>;
}

/**
 * A provider call failed. `retryable` says whether repeating the same call (same idempotency
 * key) may succeed: true for network trouble, rate limits and provider outages; false when the
 * provider refused the request itself. `code` carries the provider's error code when it sent one
 * (e.g. Stripe's `charge_already_refunded`, or `idempotency_error`).
 */
export class CheckoutProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CheckoutProviderError";
  }
}

/** The delivery did not come from Stripe with our secret, or came too late: answer 400. */
export class WebhookSignatureError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WebhookSignatureError";
  }
}
