/**
 * Verifies a Stripe webhook delivery and maps it to a PaidEvent. The caller stores the event id
 * under a unique key and credits in the same transaction, so Stripe's redeliveries are no-ops.
 */
import Stripe from "stripe";
import { type PaidEvent, WebhookSignatureError } from "./provider.js";

export { WebhookSignatureError };

/**
 * Checks the `Stripe-Signature` header against the exact raw body (re-serialised JSON would not
 * match) and maps the event. `now` is the injected clock: the timestamp in the header must be at
 * most `toleranceSec` old.
 */
export function parseStripeWebhook(
  rawBody: string,
  signatureHeader: string | undefined,
  webhookSecret: string,
  toleranceSec = 300,
  now: Date = new Date(),
): PaidEvent {
  if (!signatureHeader) {
    throw new WebhookSignatureError("Missing Stripe-Signature header: not a Stripe delivery");
  }
  if (!webhookSecret) {
    throw new WebhookSignatureError("No webhook secret configured: set the whsec_… secret");
  }
  // The SDK treats a tolerance of 0 as "skip the age check"; never let a config slip do that.
  if (!(toleranceSec > 0)) {
    throw new WebhookSignatureError("Webhook tolerance must be a positive number of seconds");
  }
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(
      rawBody,
      signatureHeader,
      webhookSecret,
      toleranceSec,
      undefined,
      now.getTime(),
    );
  } catch (err) {
    if (err instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw new WebhookSignatureError(signatureMessage(err.message), { cause: err });
    }
    // A verified signature over a body that is not JSON: still not something we can act on.
    throw new WebhookSignatureError("Webhook body is not a JSON Stripe event", { cause: err });
  }
  return mapStripeEvent(event);
}

/** Replaces the SDK's long, multi-line messages with one sentence that says what went wrong. */
function signatureMessage(sdkMessage: string): string {
  if (sdkMessage.includes("tolerance")) {
    return "Stripe-Signature timestamp is too old: possible replay, or a clock far off";
  }
  if (sdkMessage.includes("No signatures found matching")) {
    return "Stripe-Signature does not match the body: forged, altered, or a different whsec_ secret";
  }
  if (sdkMessage.includes("payload")) return "Webhook body is empty";
  return "Stripe-Signature header is malformed: expected t=…,v1=…";
}

/** Maps the events kinora acts on; every other type is "ignored" (acknowledge with 200). */
function mapStripeEvent(event: Stripe.Event): PaidEvent {
  const base = { eventId: event.id, createdAt: new Date(event.created * 1000) };
  switch (event.type) {
    case "checkout.session.completed":
      // A delayed payment method completes the session unpaid; async_payment_succeeded follows.
      return fromSession(base, "checkout.completed", event.data.object, {
        paid: event.data.object.payment_status === "paid",
      });
    case "checkout.session.async_payment_succeeded":
      return fromSession(base, "checkout.completed", event.data.object, { paid: true });
    case "checkout.session.expired":
      return fromSession(base, "checkout.expired", event.data.object, { paid: false });
    case "refund.updated":
      return fromRefund(base, event.data.object);
    case "charge.refunded":
      return fromCharge(base, event.data.object);
    default:
      return { ...base, type: "ignored" };
  }
}

type EventBase = Pick<PaidEvent, "eventId" | "createdAt">;

function fromSession(
  base: EventBase,
  type: PaidEvent["type"],
  session: Stripe.Checkout.Session,
  extra: { paid: boolean },
): PaidEvent {
  return withoutUndefined({
    ...base,
    type,
    providerSessionId: session.id,
    providerPaymentId: idOf(session.payment_intent),
    amountCents: session.amount_total ?? undefined,
    reference: session.client_reference_id ?? session.metadata?.reference ?? undefined,
    paid: extra.paid,
  });
}

function fromRefund(base: EventBase, refund: Stripe.Refund): PaidEvent {
  return withoutUndefined({
    ...base,
    type: "refund.updated",
    providerPaymentId: idOf(refund.payment_intent),
    amountCents: refund.amount,
    // Our refunds carry only metadata.reason; kept in case a refund made elsewhere sets it.
    reference: refund.metadata?.reference,
    refundId: refund.id,
    refundStatus: refund.status ?? undefined,
  });
}

function fromCharge(base: EventBase, charge: Stripe.Charge): PaidEvent {
  return withoutUndefined({
    ...base,
    type: "refund.updated",
    providerPaymentId: idOf(charge.payment_intent),
    amountCents: charge.amount_refunded,
    // Set only when the charge carries our metadata; providerPaymentId is the dependable key.
    reference: charge.metadata?.reference,
  });
}

/** Stripe fields that may be an id or, when expanded, the object itself. */
function idOf(value: string | { id: string } | null | undefined): string | undefined {
  if (!value) return undefined;
  return typeof value === "string" ? value : value.id;
}

/** Leaves absent fields out rather than present-and-undefined, so results compare cleanly. */
function withoutUndefined(event: PaidEvent): PaidEvent {
  const entries = Object.entries(event).filter(([, value]) => value !== undefined);
  // cast: only keys whose value is undefined were dropped, which PaidEvent's optional fields allow
  return Object.fromEntries(entries) as unknown as PaidEvent;
}
