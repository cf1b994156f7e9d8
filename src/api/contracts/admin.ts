/** The operator's operations (ADMIN_TOKEN): adjust, pause, reconcile, held payments, USDC refunds. */
import { z } from "@hono/zod-openapi";
import { defineContract } from "../operation.js";
import { UsdcRefund } from "../payments.js";
import { IdField } from "../schemas.js";

const TAGS = ["Operator"] as const;
const WALLET = { wallet_id: IdField("wal_4f8HkQ2n9LrT1xZcV6bYpA") };
const BY_ID = { wallet_id: "id" } as const;

/** Operator: credit (or, negative, debit) a wallet with a reason kept in the ledger. */
export const adjustWalletBalance = defineContract({
  id: "adjustWalletBalance",
  auth: "admin",
  input: z
    .object({
      ...WALLET,
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
    }),
  output: z.object({
    wallet_id: z.string(),
    applied: z.boolean(),
    balance_cents: z.number().int(),
  }),
  errors: ["not_found", "conflict"],
  rest: {
    method: "post",
    path: "/admin/wallets/{id}/credit",
    names: BY_ID,
    tags: TAGS,
    summary: "Credit or debit a wallet",
    description:
      "Adds (or, with a negative amount, removes) money as an `adjustment` ledger entry with a reason. A debit never takes the balance below zero.",
    answer: "Applied (or already applied for this reference).",
  },
});

const PauseInput = z
  .object({ ...WALLET, reason: z.string().max(500).optional() })
  .strict()
  .openapi({ example: { reason: "chargeback review" } });
const PauseState = z.object({
  id: z.string(),
  paused: z.boolean(),
  balance_cents: z.number().int(),
});

/** Operator: stop a wallet from spending (it can still be read and topped up). */
export const pauseWallet = defineContract({
  id: "pauseWallet",
  auth: "admin",
  input: PauseInput,
  output: PauseState,
  errors: ["not_found"],
  rest: {
    method: "post",
    path: "/admin/wallets/{id}/pause",
    names: BY_ID,
    tags: TAGS,
    summary: "Pause a wallet",
    description:
      "A paused wallet keeps its balance, can be read and topped up, and finishes jobs already paid, but every new charge is refused with 403.",
    answer: "The wallet's new state.",
  },
});

/** Operator: let a paused wallet spend again. */
export const unpauseWallet = defineContract({
  id: "unpauseWallet",
  auth: "admin",
  input: PauseInput,
  output: PauseState,
  errors: ["not_found"],
  rest: {
    method: "post",
    path: "/admin/wallets/{id}/unpause",
    names: BY_ID,
    tags: TAGS,
    summary: "Unpause a wallet",
    description: "Lets the wallet spend again.",
    answer: "The wallet's new state.",
  },
});

/** Operator: check every wallet's balance against its ledger entries. */
export const reconcileLedger = defineContract({
  id: "reconcileLedger",
  auth: "admin",
  input: z.object({}).strict(),
  output: z.object({
    ok: z.boolean(),
    wallets_checked: z.number().int(),
    keys_checked: z.number().int(),
    entries_checked: z.number().int(),
    drift: z.array(
      z.object({
        kind: z.string(),
        id: z.string(),
        expected: z.number().int(),
        actual: z.number().int(),
      }),
    ),
  }),
  errors: [],
  rest: {
    method: "get",
    path: "/admin/reconcile",
    tags: TAGS,
    summary: "Check every money invariant",
    description:
      "balance = Σ ledger entries, 0 ≤ spent ≤ limit, balance ≥ 0, one refund per job never above its charge. Reports drift; changes nothing.",
    answer: "The report.",
  },
});

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

/** Operator: card payments held because the amount paid differs from the checkout's. */
export const listHeldCheckouts = defineContract({
  id: "listHeldCheckouts",
  auth: "admin",
  input: z.object({}).strict(),
  output: z.object({ held: z.array(HeldCheckout) }),
  errors: [],
  rest: {
    method: "get",
    path: "/admin/checkouts/held",
    tags: TAGS,
    summary: "List held card payments",
    description:
      "Card payments whose amount differed from their checkout: not credited until the operator releases them (or refunds them at the provider).",
    answer: "Held checkouts, newest first.",
  },
});

const amount = (description: string) =>
  z
    .number()
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(10_000_000, "must be at most 10000000")
    .optional()
    .openapi({ description });

/** Operator: apply a held card payment after review (optionally a different amount). */
export const releaseHeldCheckout = defineContract({
  id: "releaseHeldCheckout",
  auth: "admin",
  input: z
    .object({
      checkout_id: IdField("co_4f8HkQ2n9LrT1xZcV6bYpA"),
      amount_cents: amount("Top-ups: what to credit; default what the provider says was paid."),
    })
    .strict()
    .openapi({ example: { amount_cents: 500 } }),
  output: HeldCheckout,
  errors: ["not_found", "wrong_state"],
  rest: {
    method: "post",
    path: "/admin/checkouts/{id}/release",
    names: { checkout_id: "id" },
    tags: TAGS,
    summary: "Apply a held card payment",
    description:
      "Credits a held top-up (default: the amount actually paid) or starts a held restore job's processing. Only a held checkout; once.",
    answer: "The checkout, now paid.",
  },
});

/** Operator: send a wallet's unused USDC-funded balance back to the paying address. */
export const refundUsdc = defineContract({
  id: "refundUsdc",
  auth: "admin",
  input: z
    .object({
      ...WALLET,
      amount_cents: amount("Default: all USDC-funded balance left (at most the balance)."),
    })
    .strict()
    .openapi({ example: { amount_cents: 300 } }),
  output: z.object({ refund: UsdcRefund }),
  errors: ["not_found", "conflict", "unavailable"],
  rest: {
    method: "post",
    path: "/admin/wallets/{id}/usdc-refund",
    names: BY_ID,
    tags: TAGS,
    summary: "Refund unused USDC-funded balance in USDC",
    description:
      "Debits the wallet (ledger kind payout) and sends USDC to the paying address — the payer of the wallet's most recent confirmed USDC payment. Refuses more than was paid in USDC minus what was already refunded, and more than the balance. A failed send is re-credited.",
    answer: "The refund (status sent, failed and re-credited, or unknown).",
  },
});
