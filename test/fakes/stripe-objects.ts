/**
 * The fake Stripe's own records of its objects (stripe-server.ts), and the API objects it shows
 * for them: a PaymentIntent as the fake keeps it, and its Charge as Stripe's API answers it.
 */
import type { Json } from "./stripe-form.js";

/** A PaymentIntent as the fake keeps it: what was captured and refunded, in the smallest unit. */
export interface PaymentIntent {
  id: string;
  chargeId: string;
  currency: string;
  capturedCents: number;
  refundedCents: number;
  metadata: Json;
}

/** The PaymentIntent's Charge, as Stripe's API and its charge.* events show it. */
export function chargeOf(pi: PaymentIntent): Json {
  return {
    id: pi.chargeId,
    object: "charge",
    amount: pi.capturedCents,
    amount_captured: pi.capturedCents,
    amount_refunded: pi.refundedCents,
    refunded: pi.refundedCents >= pi.capturedCents,
    currency: pi.currency,
    payment_intent: pi.id,
    metadata: structuredClone(pi.metadata),
  };
}
