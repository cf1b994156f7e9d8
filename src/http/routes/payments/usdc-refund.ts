import { createRoute, z } from "@hono/zod-openapi";
import { IdParam } from "../../../api/schemas.js";
import type { PaymentsDeps } from "../../../services/payments/deps.js";
import { refundUsdc } from "../../../services/payments/usdc.js";
import { errorResponses } from "../../errors.js";
import { requireAdmin } from "../../middleware/admin-auth.js";
import type { Router } from "../../router.js";

const Body = z
  .object({
    amount_cents: z
      .number()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(10_000_000, "must be at most 10000000")
      .optional()
      .openapi({ description: "Default: all USDC-funded balance left (at most the balance)." }),
  })
  .strict()
  .openapi({ example: { amount_cents: 300 } });

export function registerUsdcRefund(app: Router, deps: PaymentsDeps, adminToken: string) {
  const route = createRoute({
    method: "post",
    path: "/admin/wallets/{id}/usdc-refund",
    operationId: "refundUsdc",
    tags: ["Operator"],
    summary: "Refund unused USDC-funded balance in USDC",
    description:
      "Debits the wallet (ledger kind payout) and sends USDC to the paying address — the payer of the wallet's most recent confirmed USDC payment. Refuses more than was paid in USDC minus what was already refunded, and more than the balance. A failed send is re-credited.",
    security: [{ admin: [] }],
    middleware: [requireAdmin(adminToken)] as const,
    request: {
      params: IdParam("id", "wal_4f8HkQ2n9LrT1xZcV6bYpA"),
      body: { required: false, content: { "application/json": { schema: Body } } },
    },
    responses: {
      200: {
        description: "The refund (status sent, failed and re-credited, or unknown).",
        content: {
          "application/json": {
            schema: z.object({
              refund: z.object({
                id: z.string(),
                wallet_id: z.string(),
                to: z.string(),
                amount_cents: z.number().int(),
                status: z.enum(["sending", "sent", "failed", "unknown"]),
                transaction: z.string().nullable(),
                explorer: z.string().nullable(),
                error: z.string().nullable(),
                balance_cents: z.number().int(),
              }),
            }),
          },
        },
      },
      ...errorResponses(400, 401, 404, 409, 503),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json") ?? {};
    const refund = await refundUsdc(deps, { walletId: id, amountCents: body.amount_cents });
    return c.json({ refund }, 200);
  });
}
