/**
 * Connecting an app (an MCP client that signs in with OAuth) to the wallet: the owner's Allow
 * on the consent page. It makes the app's agent key (a connected app, with the limit the owner
 * set) and the one-time authorization code the app exchanges for tokens. No REST route and no
 * tool: OAuth's authorization step happens in the owner's browser, on the consent page that
 * shows which app asks (GET /oauth/authorize); the page runs it as the signed-in wallet key,
 * through the same runner and policies as every operation.
 */
import { z } from "@hono/zod-openapi";
import { AGENT_KEY_LIMIT_CENTS } from "../../domain/limits.js";
import { defineContract } from "../operation.js";
import { AgentKey } from "../schemas.js";

const { min, max } = AGENT_KEY_LIMIT_CENTS;
const limitError = `must be an integer from ${min} to ${max}`;
const askAboveError = "must be an integer number of cents, 0 or more, or null";

/** Wallet key only: allow an app's authorization request, with a spending limit. */
export const connectApp = defineContract({
  id: "connectApp",
  auth: "wallet",
  input: z
    .object({
      request: z
        .record(z.string(), z.string().max(4000, "must be at most 4000 characters"))
        .refine((r) => Object.keys(r).length <= 16, "must have at most 16 parameters")
        .meta({ description: "The authorization request's parameters, as the app sent them." }),
      limit_cents: z
        .number({ error: limitError })
        .int(limitError)
        .min(min, limitError)
        .max(max, limitError),
      ask_before_spending: z.boolean({ error: "must be true or false" }),
      ask_above_cents: z
        .number({ error: askAboveError })
        .int(askAboveError)
        .min(0, askAboveError)
        .max(max, `must be at most ${max}`)
        .nullable()
        .optional()
        .meta({
          description:
            "The owner's threshold: purchases at or below it go ahead without asking. null: ask for every one.",
        }),
    })
    .strict(),
  output: z.object({
    agent_key: AgentKey,
    redirect_to: z.string().openapi({
      description: "The app's redirect URI with the authorization code, state and iss.",
    }),
  }),
  errors: ["conflict", "invalid_request"],
  policies: { spends: true, rate: "spend" },
});
