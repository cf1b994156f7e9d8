/** The wallet and its agent keys: create, read, and the wallet key's management of keys. */
import { z } from "@hono/zod-openapi";
import { AGENT_KEY_LIMIT_CENTS, LABEL_MAX_LENGTH } from "../../domain/limits.js";
import { defineContract, READ_ONLY } from "../operation.js";
import { AgentKey, Email, IdField, Wallet } from "../schemas.js";

const { min, max } = AGENT_KEY_LIMIT_CENTS;
const askAboveError = "must be an integer number of cents, 0 or more, or null";

/** The owner's threshold: a key that asks buys at or below it without asking. */
const AskAboveCents = z
  .number({ error: askAboveError })
  .int(askAboveError)
  .min(0, askAboveError)
  .max(max, `must be at most ${max}`)
  .nullable()
  .optional()
  .openapi({
    description:
      "With ask_before_spending: purchases at or below this many cents go ahead without asking; dearer ones wait for the owner's approval. null or absent: ask for every purchase. At most limit_cents.",
  });
const BALANCE = ["Balance"] as const;
const KEYS = ["Agent keys"] as const;

/** Create a wallet and its wallet key (shown once); no key needed. */
export const createWallet = defineContract({
  id: "createWallet",
  auth: "none",
  input: z
    .object({ email: Email.optional() })
    .strict()
    .openapi({ example: { email: "owner@example.com" } }),
  output: z.object({
    key: z.string().openapi({ example: "pmk_2mYb9…", description: "Shown once." }),
    wallet: Wallet,
  }),
  errors: [],
  policies: { rate: "create" },
  rest: {
    method: "post",
    path: "/wallet",
    tags: BALANCE,
    summary: "Create a wallet",
    description:
      "Creates an empty wallet and its wallet key (`pmk_`). The key is shown once: store it. No authentication.",
    answer: "The wallet key (shown once) and the wallet.",
  },
});

/** The wallet as the calling key sees it: balance, spendable, its own allowance. */
export const getWallet = defineContract({
  id: "getWallet",
  auth: "key",
  input: z.object({}).strict(),
  output: z.object({ wallet: Wallet }),
  errors: [],
  rest: {
    method: "get",
    path: "/wallet",
    tags: BALANCE,
    summary: "Read the wallet",
    description:
      "The wallet as the calling key sees it: `email` only for the wallet key, `agent_key` when an agent key calls, `spendable_cents` = what this key can spend now.",
    answer: "The wallet.",
  },
  mcp: {
    name: "get_balance",
    title: "Balance and allowance",
    description:
      "Free. Balance, what this key can still spend (spendable_cents), its limit, and when it must ask its owner (ask_before_spending, ask_above_cents).",
    annotations: READ_ONLY,
  },
});

/** Wallet key only: a new agent key with a spending limit (the secret shown once). */
export const createAgentKey = defineContract({
  id: "createAgentKey",
  auth: "wallet",
  input: z
    .object({
      label: z
        .string()
        .max(LABEL_MAX_LENGTH, `must be at most ${LABEL_MAX_LENGTH} characters`)
        .optional(),
      limit_cents: z
        .number({ error: `must be an integer from ${min} to ${max}` })
        .int(`must be an integer from ${min} to ${max}`)
        .min(min, `must be an integer from ${min} to ${max}`)
        .max(max, `must be an integer from ${min} to ${max}`),
      ask_before_spending: z.boolean({ error: "must be true or false" }).optional().openapi({
        description:
          "Default true: assistants using this key ask the owner before each purchase. false: the owner agrees in advance to spending within the limit.",
      }),
      ask_above_cents: AskAboveCents,
    })
    .strict()
    .openapi({
      example: {
        label: "my assistant",
        limit_cents: 500,
        ask_before_spending: true,
        ask_above_cents: 100,
      },
    }),
  output: z.object({ key: z.string().openapi({ example: "pak_7Qx…" }), agent_key: AgentKey }),
  errors: ["conflict"],
  policies: { spends: true, rate: "spend" },
  rest: {
    method: "post",
    path: "/wallet/keys",
    tags: KEYS,
    summary: "Create an agent key",
    description:
      "Creates an agent key (`pak_`) that can spend at most `limit_cents` in total from this wallet. The secret is shown once. Wallet key only.",
    answer: "The agent key secret (shown once) and its details.",
  },
});

/** Wallet key only: the wallet's agent keys and connected apps. */
export const listAgentKeys = defineContract({
  id: "listAgentKeys",
  auth: "wallet",
  input: z.object({}).strict(),
  output: z.object({ keys: z.array(AgentKey) }),
  errors: [],
  rest: {
    method: "get",
    path: "/wallet/keys",
    tags: KEYS,
    summary: "List agent keys",
    description:
      "Every agent key and connected app of the wallet, newest first, without secrets. Wallet key only.",
    answer: "The agent keys.",
  },
});

/** Wallet key only: change an agent key's spending limit and/or its threshold for asking. */
export const changeAgentKeyLimit = defineContract({
  id: "changeAgentKeyLimit",
  auth: "wallet",
  input: z
    .object({
      key_id: IdField("key_3mJr7AoUXx7Wqd2vBZLWmU"),
      limit_cents: z
        .number({ error: `must be an integer from ${min} to ${max}` })
        .int(`must be an integer from ${min} to ${max}`)
        .min(min, `must be an integer from ${min} to ${max}`)
        .max(max, `must be an integer from ${min} to ${max}`)
        .optional()
        .openapi({
          description:
            "The key's new total limit in cents: at least what it already spent (spent_cents). Absent: unchanged.",
        }),
      ask_above_cents: AskAboveCents,
    })
    .strict()
    .openapi({ example: { limit_cents: 2000, ask_above_cents: 100 } }),
  output: z.object({ agent_key: AgentKey }),
  errors: ["not_found", "wrong_state"],
  rest: {
    method: "patch",
    path: "/wallet/keys/{id}",
    names: { key_id: "id" },
    tags: KEYS,
    summary: "Change an agent key's limit or threshold",
    description:
      "Raises or lowers what the key may spend in total (a connected app's too), never below what it already spent, and/or sets `ask_above_cents` (null: ask for every purchase); give either or both. A revoked key is refused (wrong_state). A limit change is written to the wallet's ledger as a key_limit entry that moves no money. Wallet key only: no agent key or connected app changes its own.",
    answer: "The key with its new limit and threshold.",
  },
});

/** Wallet key only: revoke an agent key; it stops working at once. */
export const revokeAgentKey = defineContract({
  id: "revokeAgentKey",
  auth: "wallet",
  input: z.object({ key_id: IdField("key_3mJr7AoUXx7Wqd2vBZLWmU") }).strict(),
  output: z.object({ agent_key: AgentKey }),
  errors: ["not_found"],
  rest: {
    method: "post",
    path: "/wallet/keys/{id}/revoke",
    names: { key_id: "id" },
    tags: KEYS,
    summary: "Revoke an agent key",
    description:
      "Stops the key at once. Revoking a revoked key returns it unchanged. Wallet key only.",
    answer: "The key, revoked.",
  },
});
