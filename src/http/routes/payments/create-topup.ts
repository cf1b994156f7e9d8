import { createRoute } from "@hono/zod-openapi";
import { TopupBody, TopupCheckout } from "../../../api/payments.js";
import { openTopupCheckout } from "../../../services/payments/checkouts.js";
import type { PaymentsDeps } from "../../../services/payments/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

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
