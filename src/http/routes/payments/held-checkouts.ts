/** Operator: card payments held because their amount did not match the checkout. */
import { createRoute, z } from "@hono/zod-openapi";
import { IdParam } from "../../../api/schemas.js";
import { listHeldCheckouts, releaseHeldCheckout } from "../../../services/payments/checkouts.js";
import type { PaymentsDeps } from "../../../services/payments/deps.js";
import { errorResponses } from "../../errors.js";
import { requireAdmin } from "../../middleware/admin-auth.js";
import type { Router } from "../../router.js";

const HeldCheckout = z
  .object({
    checkout_id: z.string(),
    purpose: z.enum(["topup", "restore_job"]),
    wallet_id: z.string().nullable(),
    job_id: z.string().nullable(),
    provider: z.string(),
    provider_payment_id: z.string().nullable(),
    amount_cents: z.number().int(),
    paid_amount_cents: z.number().int().nullable(),
    held_reason: z.string().nullable(),
    paid_at: z.string().nullable(),
    status: z.string(),
  })
  .openapi("HeldCheckout");

const ReleaseBody = z
  .object({
    amount_cents: z
      .number()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(10_000_000, "must be at most 10000000")
      .optional()
      .openapi({
        description: "Top-ups: what to credit; default what the provider says was paid.",
      }),
  })
  .strict()
  .openapi({ example: { amount_cents: 500 } });

export function registerHeldCheckouts(app: Router, deps: PaymentsDeps, adminToken: string) {
  const auth = requireAdmin(adminToken);
  const list = createRoute({
    method: "get",
    path: "/admin/checkouts/held",
    operationId: "listHeldCheckouts",
    tags: ["Operator"],
    summary: "List held card payments",
    description:
      "Card payments whose amount differed from their checkout: not credited until the operator releases them (or refunds them at the provider).",
    security: [{ admin: [] }],
    middleware: [auth] as const,
    responses: {
      200: {
        description: "Held checkouts, newest first.",
        content: { "application/json": { schema: z.object({ held: z.array(HeldCheckout) }) } },
      },
      ...errorResponses(401),
    },
  });
  app.openapi(list, async (c) => c.json({ held: await listHeldCheckouts(deps) }, 200));

  const release = createRoute({
    method: "post",
    path: "/admin/checkouts/{id}/release",
    operationId: "releaseHeldCheckout",
    tags: ["Operator"],
    summary: "Apply a held card payment",
    description:
      "Credits a held top-up (default: the amount actually paid) or starts a held restore job's processing. Only a held checkout; once.",
    security: [{ admin: [] }],
    middleware: [auth] as const,
    request: {
      params: IdParam("id", "co_4f8HkQ2n9LrT1xZcV6bYpA"),
      body: { required: false, content: { "application/json": { schema: ReleaseBody } } },
    },
    responses: {
      200: {
        description: "The checkout, now paid.",
        content: { "application/json": { schema: HeldCheckout } },
      },
      ...errorResponses(400, 401, 404, 409),
    },
  });
  app.openapi(release, async (c) => {
    const body = c.req.valid("json") ?? {};
    const released = await releaseHeldCheckout(deps, c.req.valid("param").id, body.amount_cents);
    return c.json(released, 200);
  });
}
