import { createRoute, z } from "@hono/zod-openapi";
import { invalidRequest } from "../../../domain/errors.js";
import { WebhookSignatureError } from "../../../payments/checkout/provider.js";
import type { StripeCheckoutProvider } from "../../../payments/checkout/stripe-provider.js";
import type { PaymentsDeps } from "../../../services/payments/deps.js";
import { handleStripeEvent } from "../../../services/payments/stripe-events.js";
import { errorResponses } from "../../errors.js";
import { smallBody } from "../../middleware/body-limit.js";
import type { Router } from "../../router.js";

/** POST /webhooks/stripe: verified events, each acted on once. */
export function registerStripeWebhook(
  app: Router,
  deps: PaymentsDeps,
  stripe: StripeCheckoutProvider,
) {
  app.use("/webhooks/stripe", smallBody);
  const route = createRoute({
    method: "post",
    path: "/webhooks/stripe",
    operationId: "receiveStripeWebhook",
    tags: ["Webhooks"],
    summary: "Stripe webhook",
    description:
      "Receives Stripe events (checkout.session.completed, checkout.session.async_payment_succeeded, checkout.session.expired). The Stripe-Signature header is verified against the raw body; each event id is acted on once.",
    responses: {
      200: {
        description: "Received (also for duplicates and event types kinora ignores).",
        content: {
          "application/json": {
            schema: z.object({ received: z.boolean(), outcome: z.string() }),
          },
        },
      },
      ...errorResponses(400),
    },
  });
  app.openapi(route, async (c) => {
    // The exact bytes: re-serialised JSON would not match the signature.
    const raw = await c.req.text();
    let event: ReturnType<StripeCheckoutProvider["parseWebhook"]>;
    try {
      event = stripe.parseWebhook(raw, c.req.header("stripe-signature"));
    } catch (err) {
      if (err instanceof WebhookSignatureError) throw invalidRequest(`${err.message}.`);
      throw err;
    }
    const outcome = await handleStripeEvent(deps, event);
    return c.json({ received: true, outcome }, 200);
  });
}
