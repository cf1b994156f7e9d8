import { createRoute, z } from "@hono/zod-openapi";
import { ApiError, notFound } from "../../../domain/errors.js";
import type { CoreDeps } from "../../../services/deps.js";
import { credit } from "../../../services/ledger.js";
import { errorResponses } from "../../errors.js";
import { requireAdmin } from "../../middleware/admin-auth.js";
import type { Router } from "../../router.js";
import { IdParam } from "../../schemas.js";

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
      description: "Your id for this adjustment; a repeated reference applies nothing.",
    }),
  })
  .strict();

export function registerCreditWallet(app: Router, deps: CoreDeps, adminToken: string) {
  const route = createRoute({
    method: "post",
    path: "/admin/wallets/{id}/credit",
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
    const result = await credit(deps.db, {
      walletId: id,
      amountCents: body.amount_cents,
      kind: "adjustment",
      reference: body.reference ?? deps.ids("adj"),
      reason: `operator: ${body.reason}`,
    });
    if (result.balanceCents === null) throw notFound("Wallet");
    if (!result.credited && body.amount_cents < 0 && !body.reference) {
      throw new ApiError(
        409,
        `The balance (${result.balanceCents} cents) is smaller than the debit; debit at most the balance.`,
      );
    }
    deps.log.info("operator adjustment", {
      wallet_id: id,
      amount_cents: body.amount_cents,
      applied: result.credited,
    });
    return c.json(
      { wallet_id: id, applied: result.credited, balance_cents: result.balanceCents },
      200,
    );
  });
}
