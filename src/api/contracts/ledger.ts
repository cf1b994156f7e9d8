/**
 * The wallet's history, wallet key only: its ledger a page at a time, and what it spent per day
 * and per key. The owner's console shows both; no MCP tools, since an assistant's key cannot
 * read the wallet's books (and the tool list has a size budget: test/mcp/tools-size.test.ts).
 */
import { z } from "@hono/zod-openapi";
import { defineContract } from "../operation.js";

const TAGS = ["Balance"] as const;
/** Entries a page holds: 50 unless asked, at most 200. */
export const LEDGER_PAGE = { min: 1, max: 200, example: 50 } as const;
/** Days the spending view covers: 30 unless asked, at most 90. */
export const SPENDING_DAYS = { min: 1, max: 90, example: 30 } as const;

const range = ({ min, max }: { min: number; max: number }) => {
  const error = `must be an integer from ${min} to ${max}`;
  return z.number({ error }).int(error).min(min, error).max(max, error);
};

/** One ledger entry: a change of the balance, or (key_limit) of a key's limit. */
const LedgerEntry = z
  .object({
    id: z.number().int().openapi({ example: 4182 }),
    kind: z.enum(["charge", "refund", "topup", "adjustment", "payout", "key_limit"]),
    amount_cents: z.number().int().openapi({ description: "Negative: taken from the balance." }),
    display: z.string().openapi({ example: "-$2.99" }),
    key_amount_cents: z.number().int().openapi({
      description: "What the entry moved on its agent key's spent amount (0 for the wallet key).",
    }),
    agent_key_id: z.string().nullable(),
    job_id: z.string().nullable(),
    reference: z.string().nullable(),
    reason: z.string().openapi({ example: "restore rj_5pX0c1Hq3GvJ2Yb8Lw9RzA (Standard, 95 s)" }),
    created_at: z.string(),
  })
  .openapi("LedgerEntry");

/** Wallet key only: the wallet's ledger, newest first, a page at a time. */
export const listLedger = defineContract({
  id: "listLedger",
  auth: "wallet",
  input: z
    .object({
      limit: range(LEDGER_PAGE)
        .optional()
        .meta({ description: "Entries per page, newest first.", default: LEDGER_PAGE.example }),
      before: z
        .number({ error: "must be an entry id (a positive integer)" })
        .int("must be an entry id (a positive integer)")
        .positive("must be an entry id (a positive integer)")
        .optional()
        .meta({ description: "next_before of the previous page: entries older than this id." }),
    })
    .strict(),
  output: z.object({
    entries: z.array(LedgerEntry),
    next_before: z.number().int().nullable().openapi({
      description: "Pass as `before` for the next (older) page; null on the last.",
    }),
  }),
  errors: [],
  rest: {
    method: "get",
    path: "/wallet/ledger",
    tags: TAGS,
    summary: "Read the ledger",
    description:
      "Every change of the balance (charges, refunds, top-ups, adjustments, payouts) and of a key's limit, newest first: the wallet's books, which its balance always equals the sum of. Wallet key only.",
    answer: "A page of entries.",
  },
});

/** Wallet key only: net spending per UTC day and per key. */
export const getSpending = defineContract({
  id: "getSpending",
  auth: "wallet",
  input: z
    .object({
      days: range(SPENDING_DAYS)
        .optional()
        .meta({ description: "How many days, today included.", default: SPENDING_DAYS.example }),
    })
    .strict(),
  output: z.object({
    days: z.array(z.string()).openapi({
      description: "The days covered, oldest first (YYYY-MM-DD, UTC).",
      example: ["2026-07-01", "2026-07-02"],
    }),
    spending: z.array(
      z.object({
        day: z.string().openapi({ example: "2026-07-02" }),
        agent_key_id: z.string().nullable().openapi({
          description: "The agent key (or connected app) that spent; null: the wallet key.",
        }),
        spent_cents: z.number().int().openapi({
          description: "Charges less what went back (refunds, measured differences) that day.",
        }),
      }),
    ),
  }),
  errors: [],
  rest: {
    method: "get",
    path: "/wallet/spending",
    tags: TAGS,
    summary: "Spending per day and key",
    description:
      "What each key spent per UTC day over the last `days` days (charges less refunds, from the ledger); days and keys that spent nothing are left out. Wallet key only.",
    answer: "The days and what was spent on them.",
  },
});
