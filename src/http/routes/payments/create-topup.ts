import { createRoute, z } from "@hono/zod-openapi";
import { CARD_TOPUP_CENTS } from "../../../domain/limits.js";
import { openTopupCheckout } from "../../../services/payments/checkouts.js";
import type { PaymentsDeps } from "../../../services/payments/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";
import { Email } from "../../schemas.js";

const { min, max } = CARD_TOPUP_CENTS;

export const TopupBody = z
  .object({
    amount_cents: z
      .number({ error: `must be an integer from ${min} to ${max}` })
      .int(`must be an integer from ${min} to ${max}`)
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`)
      .openapi({ example: 2000 }),
    email: Email.optional().openapi({ description: "Where the provider sends the receipt." }),
  })
  .strict()
  .openapi({ example: { amount_cents: 2000, email: "owner@example.com" } });

export const TopupCheckout = z
  .object({
    checkout_url: z
      .string()
      .openapi({ description: "Open this link to pay (for the person paying)." }),
    checkout_id: z.string().openapi({ example: "co_2hQx8Zc1Vb7Lk3Pn9TwR4m" }),
    amount_cents: z.number().int(),
    display: z.string().openapi({ example: "$20.00" }),
    expires_at: z.string().openapi({ description: "The link stops working after this time." }),
  })
  .openapi("TopupCheckout");

export function registerCreateTopup(app: Router, deps: PaymentsDeps) {
  const route = createRoute({
    method: "post",
    path: "/wallet/topup",
    operationId: "createTopUpLink",
    tags: ["Balance"],
    summary: "Top up by card (checkout link)",
    description:
      "Opens a hosted card checkout for the amount and returns its link for the person paying. The balance is credited once, when the payment is confirmed. Without Stripe keys the server uses its built-in TEST MODE checkout (no real money).",
    security: bearerSecurity,
    middleware: [requireKey(deps.platform)] as const,
    request: { body: { required: true, content: { "application/json": { schema: TopupBody } } } },
    responses: {
      200: {
        description: "The checkout link.",
        content: { "application/json": { schema: TopupCheckout } },
      },
      ...errorResponses(400, 401, 503),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const opened = await openTopupCheckout(deps, {
      walletId: c.get("principal").walletId,
      amountCents: body.amount_cents,
      email: body.email ?? null,
    });
    return c.json(opened, 200);
  });
}
