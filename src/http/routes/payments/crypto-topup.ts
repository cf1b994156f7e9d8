import { createRoute, z } from "@hono/zod-openapi";
import { UsdcCredited, UsdcPending, UsdcTopupBody } from "../../../api/payments.js";
import { ErrorBody } from "../../../api/schemas.js";
import type { PaymentsDeps } from "../../../services/payments/deps.js";
import { cryptoTopup } from "../../../services/payments/usdc.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

const Headers = z.object({
  "payment-signature": z.string().max(16_384).optional().openapi({
    description: "Base64 JSON x402 v2 payment payload (the signed EIP-3009 transfer).",
  }),
});

function cryptoTopupRoute(deps: PaymentsDeps) {
  return createRoute({
    method: "post",
    path: "/wallet/topup/crypto",
    operationId: "topUpWithUsdc",
    tags: ["Balance"],
    summary: "Top up with USDC (x402 v2)",
    description:
      "Without PAYMENT-SIGNATURE: 402 with the terms in the PAYMENT-REQUIRED header (base64 JSON; also in the body as payment_required). Sign the EIP-3009 transfer and repeat with PAYMENT-SIGNATURE. 200 when credited (receipt in PAYMENT-RESPONSE), 202 when paid but awaiting chain confirmation (credited automatically, once), 402 when refused (nothing taken), 503 when USDC is not switched on or the facilitator is unreachable.",
    security: bearerSecurity,
    middleware: [requireKey(deps.platform)] as const,
    request: {
      headers: Headers,
      body: { required: true, content: { "application/json": { schema: UsdcTopupBody } } },
    },
    responses: {
      200: {
        description: "Credited.",
        headers: {
          "PAYMENT-RESPONSE": {
            description: "The x402 settlement receipt (base64 JSON).",
            schema: { type: "string" },
          },
        },
        content: {
          "application/json": {
            schema: UsdcCredited,
          },
        },
      },
      202: {
        description:
          "Paid, waiting for chain confirmation; the balance is credited when it confirms.",
        content: {
          "application/json": {
            schema: UsdcPending,
          },
        },
      },
      402: {
        description:
          "Payment required, or refused (nothing taken). Terms in PAYMENT-REQUIRED and payment_required.",
        headers: {
          "PAYMENT-REQUIRED": {
            description: "The x402 v2 payment terms (base64 JSON of PaymentRequired).",
            schema: { type: "string" },
          },
        },
        content: {
          "application/json": {
            schema: ErrorBody.extend({
              payment_required: z.record(z.string(), z.unknown()).optional(),
            }),
          },
        },
      },
      ...errorResponses(400, 401, 503),
    },
  });
}

export function registerCryptoTopup(app: Router, deps: PaymentsDeps) {
  app.openapi(cryptoTopupRoute(deps), async (c) => {
    const body = c.req.valid("json");
    const headers = c.req.valid("header");
    const result = await cryptoTopup(deps, {
      principal: c.get("principal"),
      amountCents: body.amount_cents,
      paymentHeader: headers["payment-signature"],
      resource: {
        url: `${deps.platform.publicUrl}/wallet/topup/crypto`,
        description: "kinora wallet top-up",
      },
    });
    if (result.paymentResponse) c.header("PAYMENT-RESPONSE", result.paymentResponse);
    c.header("Access-Control-Expose-Headers", "PAYMENT-REQUIRED, PAYMENT-RESPONSE");
    if (result.status === 200) return c.json(result.body, 200);
    return c.json(result.body, 202);
  });
}
