/** Money: get_balance, create_top_up_link, top_up_with_usdc (x402 v2 over MCP). */
import { z } from "@hono/zod-openapi";
import {
  TopupBody,
  TopupCheckout,
  UsdcCredited,
  UsdcPending,
  UsdcTopupBody,
} from "../../api/payments.js";
import { Wallet } from "../../api/schemas.js";
import { decodeSettlementHeader, encodePaymentPayloadHeader } from "../../payments/x402/terms.js";
import { openTopupCheckout } from "../../services/payments/checkouts.js";
import { cryptoTopup } from "../../services/payments/usdc.js";
import { walletView } from "../../services/wallets.js";
import { IdempotencyKeyArg } from "../schema.js";
import { defineTool, READ_ONLY, reply } from "../tool.js";

export const getBalance = defineTool({
  name: "get_balance",
  title: "Balance and allowance",
  description:
    "Free. The wallet's balance, what this key can still spend (spendable_cents = the smaller of the balance and the key's remaining limit), and the key's limit, spent amount and ask_before_spending (the owner's standing agreement: true means ask before each purchase).",
  input: z.object({}).strict(),
  output: z.object({ wallet: Wallet }),
  annotations: READ_ONLY,
  run: async (ctx) => reply({ wallet: await walletView(ctx.platform, ctx.principal) }),
});

export const createTopUpLink = defineTool({
  name: "create_top_up_link",
  title: "Card top-up link for the owner",
  description:
    "Nothing is charged until paid. Opens a hosted card checkout for amount_cents (500–20000) and returns checkout_url: give it to the wallet owner; the balance is credited once they pay.",
  input: TopupBody.extend({ idempotency_key: IdempotencyKeyArg }),
  output: TopupCheckout,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  spends: true,
  run: async (ctx, a) =>
    reply(
      await openTopupCheckout(ctx.payments, {
        walletId: ctx.principal.walletId,
        amountCents: a.amount_cents,
        email: a.email ?? null,
      }),
    ),
});

export const topUpWithUsdc = defineTool({
  name: "top_up_with_usdc",
  title: "Top up with USDC (x402)",
  description:
    'Adds $1 to $200 (amount_cents 100–20000) in USDC from the assistant\'s own wallet, at 1 USDC = $1, over x402 v2. The first call answers isError with the x402 PaymentRequired terms in structuredContent: sign the EIP-3009 transfer and repeat the call with the signed payment payload in params._meta["x402/payment"]. The settlement comes back in result._meta["x402/payment-response"]; a payment still confirming on chain is a success saying it is pending (credited once it confirms).',
  input: UsdcTopupBody.extend({ idempotency_key: IdempotencyKeyArg }),
  output: z.union([UsdcCredited, UsdcPending]),
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  spends: true,
  async run(ctx, a, meta) {
    const payment = meta?.["x402/payment"];
    const result = await cryptoTopup(ctx.payments, {
      principal: ctx.principal,
      amountCents: a.amount_cents,
      // The same code path as REST: the payload object travels as its base64 header form.
      paymentHeader:
        payment && typeof payment === "object" ? encodePaymentPayloadHeader(payment) : undefined,
      resource: {
        url: `${ctx.platform.publicUrl}/mcp`,
        description: "kinora wallet top-up (MCP top_up_with_usdc)",
      },
    });
    const settlement = result.paymentResponse
      ? decodeSettlementHeader(result.paymentResponse)
      : undefined;
    return reply(result.body, settlement ? { "x402/payment-response": settlement } : undefined);
  },
});
