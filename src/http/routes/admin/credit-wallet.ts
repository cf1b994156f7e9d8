import { createRoute, z } from "@hono/zod-openapi";
import { IdParam } from "../../../api/schemas.js";
import { adjustBalance } from "../../../services/adjustments.js";
import type { CoreDeps } from "../../../services/deps.js";
import { errorResponses } from "../../errors.js";
import { requireAdmin } from "../../middleware/admin-auth.js";
import type { Router } from "../../router.js";

const Body = z
  .object({
    amount_cents: z
      .number({ error: "must be a non-zero integer (negative to debit)" })
      .int("must be a non-zero integer (negative to debit)")
      .min(-10_000_000, "must be at least -10000000")
      .max(10_000_000, "must be at most 10000000")
      .refine((v) => v !== 0, "must not be 0"),
    reason: z.string().min(1, "is required: say why, it is kept in the ledger").max(500),
    reference: z.string().min(1).max(200).optional().openapi({
      description:
        "Your id for this adjustment: repeating it with the same wallet and amount applies nothing again; with another amount it is a 409.",
    }),
  })
  .strict()
  .openapi({
    example: {
      amount_cents: 500,
      reason: "goodwill after a failed upload",
      reference: "ticket-4411",
    },
  });

export function registerCreditWallet(app: Router, deps: CoreDeps, adminToken: string) {
  const route = createRoute({
    method: "post",
    path: "/admin/wallets/{id}/credit",
    operationId: "adjustWalletBalance",
    tags: ["Operator"],
    summary: "Credit or debit a wallet",
    description:
      "Adds (or, with a negative amount, removes) money as an `adjustment` ledger entry with a reason. A debit never takes the balance below zero.",
    security: [{ admin: [] }],
    middleware: [requireAdmin(adminToken)] as const,
    request: {
      params: IdParam("id", "wal_4f8HkQ2n9LrT1xZcV6bYpA"),
      body: { required: true, content: { "application/json": { schema: Body } } },
    },
    responses: {
      200: {
        description: "Applied (or already applied for this reference).",
        content: {
          "application/json": {
            schema: z.object({
              wallet_id: z.string(),
              applied: z.boolean(),
              balance_cents: z.number().int(),
            }),
          },
        },
      },
      ...errorResponses(400, 401, 404, 409),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = await adjustBalance(deps, {
      walletId: id,
      amountCents: body.amount_cents,
      reason: body.reason,
      reference: body.reference,
    });
    return c.json(result, 200);
  });
}
