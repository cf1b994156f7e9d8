/** Response and field schemas shared by several routes; they become OpenAPI components. */
import { z } from "@hono/zod-openapi";

export const ErrorBody = z
  .object({
    detail: z.string().openapi({ example: "limit_cents: must be an integer from 1 to 100000." }),
    needs_topup: z.boolean().optional(),
    over_limit: z.boolean().optional(),
    refused: z.string().optional(),
    request_id: z.string().optional(),
  })
  .openapi("Error");

export const AgentKey = z
  .object({
    id: z.string().openapi({ example: "key_3mJr7AoUXx7Wqd2vBZLWmU" }),
    label: z.string(),
    limit_cents: z.number().int(),
    spent_cents: z.number().int(),
    remaining_cents: z.number().int(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked: z.boolean(),
    kind: z.enum(["agent", "connected_app"]),
  })
  .openapi("AgentKey");

export const Wallet = z
  .object({
    wallet_id: z.string().openapi({ example: "wal_4f8HkQ2n9LrT1xZcV6bYpA" }),
    balance_cents: z.number().int(),
    spendable_cents: z.number().int().openapi({
      description: "What the calling key can spend now: 0 when paused or revoked.",
    }),
    paused: z.boolean().openapi({
      description:
        "Set by the operator. A paused wallet can be read and topped up but cannot spend (charges answer 403).",
    }),
    email: z.string().nullable().optional().openapi({ description: "Only for the wallet key." }),
    agent_key: AgentKey.optional().openapi({ description: "Present when an agent key calls." }),
  })
  .openapi("Wallet");

export const Email = z
  .string()
  .max(254, "must be at most 254 characters")
  .email("must be an e-mail address like name@example.com");

export const IdParam = (name: string, example: string) =>
  z.object({
    id: z
      .string()
      .min(1)
      .max(64)
      .openapi({ param: { name, in: "path" }, example }),
  });
