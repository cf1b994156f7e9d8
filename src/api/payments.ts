/** The money contract shared by REST and MCP: top-up requests and what they answer. */
import { z } from "@hono/zod-openapi";
import { CARD_TOPUP_CENTS, USDC_TOPUP_CENTS } from "../domain/limits.js";
import { Email, Wallet } from "./schemas.js";

/** The range message for an amount in cents, as every surface words it. */
const amountCents = ({ min, max }: { min: number; max: number }) =>
  z
    .number({ error: `must be an integer from ${min} to ${max}` })
    .int(`must be an integer from ${min} to ${max}`)
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

/** What a card top-up takes: the amount in cents and a receipt address. */
export const TopupBody = z
  .object({
    amount_cents: amountCents(CARD_TOPUP_CENTS).openapi({ example: 2000 }).meta({
      description: "Cents to add ($5–$200).",
      minimum: CARD_TOPUP_CENTS.min,
      maximum: CARD_TOPUP_CENTS.max,
    }),
    email: Email.optional().meta({ description: "For the receipt." }),
  })
  .strict()
  .openapi({ example: { amount_cents: 2000, email: "owner@example.com" } });

/** A card checkout link: where to pay, how much, until when. */
export const TopupCheckout = z
  .object({
    checkout_url: z
      .string()
      .openapi({ description: "Open this link to pay (for the person paying)." }),
    checkout_id: z.string().openapi({ example: "co_2hQx8Zc1Vb7Lk3Pn9TwR4m" }),
    amount_cents: z.number().int(),
    display: z.string().openapi({ example: "$20.00" }),
    expires_at: z.string().openapi({ description: "The link stops working after this time." }),
  })
  .openapi("TopupCheckout");

/** A USDC top-up credited: the amount, the transaction and the wallet after it. */
export const UsdcCredited = z.object({
  credited_cents: z.number().int(),
  transaction: z.string(),
  explorer: z.string().nullable().openapi({
    description:
      "Link to the transaction on the chain's explorer (Base chains, or X402_EXPLORER_TX_URL).",
  }),
  wallet: Wallet,
});

/** A USDC top-up paid but waiting for the chain's confirmation (credited once, later). */
export const UsdcPending = z.object({
  detail: z.string(),
  transaction: z.string().nullable(),
  explorer: z.string().nullable(),
  status: z.literal("pending"),
});

/** What a USDC top-up takes: the amount in cents (1 USDC = 100 cents). */
export const UsdcTopupBody = z
  .object({
    amount_cents: amountCents(USDC_TOPUP_CENTS).openapi({ example: 500 }).meta({
      description: "Cents to add ($1–$200); 1 USDC = 100 cents.",
      minimum: USDC_TOPUP_CENTS.min,
      maximum: USDC_TOPUP_CENTS.max,
    }),
  })
  .strict()
  .openapi({ example: { amount_cents: 500 } });

/** A USDC refund sent back to the paying address (operator action). */
export const UsdcRefund = z
  .object({
    id: z.string(),
    wallet_id: z.string(),
    to: z.string(),
    amount_cents: z.number().int(),
    status: z.enum(["sending", "sent", "failed", "unknown"]),
    transaction: z.string().nullable(),
    explorer: z.string().nullable(),
    error: z.string().nullable(),
    balance_cents: z.number().int(),
  })
  .openapi("UsdcRefund");

/** A USDC refund as the admin API shows it. */
export type UsdcRefundView = z.input<typeof UsdcRefund>;
