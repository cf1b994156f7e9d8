/** Money in: a card checkout link, and USDC over x402 v2. */
import { defineContract } from "../operation.js";
import { TopupBody, TopupCheckout, UsdcCredited, UsdcPending, UsdcTopupBody } from "../payments.js";

const TAGS = ["Balance"] as const;

export const createTopUpLink = defineContract({
  id: "createTopUpLink",
  auth: "key",
  input: TopupBody,
  output: TopupCheckout,
  errors: ["unavailable"],
  policies: { spends: true, rate: "spend" },
  rest: {
    method: "post",
    path: "/wallet/topup",
    tags: TAGS,
    summary: "Top up by card (checkout link)",
    description:
      "Opens a hosted card checkout for the amount and returns its link for the person paying. The balance is credited once, when the payment is confirmed. Without Stripe keys the server uses its built-in TEST MODE checkout (no real money).",
    answer: "The checkout link.",
  },
  mcp: {
    name: "create_top_up_link",
    title: "Card top-up link for the owner",
    description:
      "Nothing is charged until paid. Opens a hosted card checkout for amount_cents (500–20000) and returns checkout_url: give it to the wallet owner; the balance is credited once they pay.",
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
});

export const topUpWithUsdc = defineContract({
  id: "topUpWithUsdc",
  auth: "key",
  input: UsdcTopupBody,
  output: UsdcCredited,
  errors: ["payment_required", "unavailable", "upstream_failed"],
  policies: { spends: true, rate: "spend", payment: "x402" },
  remedies: {
    unavailable: (refer) => `Add money by card with ${refer(createTopUpLink)} instead.`,
  },
  rest: {
    method: "post",
    path: "/wallet/topup/crypto",
    tags: TAGS,
    summary: "Top up with USDC (x402 v2)",
    description:
      "Without PAYMENT-SIGNATURE: 402 with the terms in the PAYMENT-REQUIRED header (base64 JSON; also in the body as payment_required). Sign the EIP-3009 transfer and repeat with PAYMENT-SIGNATURE. 200 when credited (receipt in PAYMENT-RESPONSE), 202 when paid but awaiting chain confirmation (credited automatically, once), 402 when refused (nothing taken), 503 when USDC is not switched on or the facilitator is unreachable.",
    answer: "Credited.",
    headers: { "PAYMENT-RESPONSE": "The x402 settlement receipt (base64 JSON)." },
    accepted: {
      description:
        "Paid, waiting for chain confirmation; the balance is credited when it confirms.",
      schema: UsdcPending,
    },
  },
  mcp: {
    name: "top_up_with_usdc",
    title: "Top up with USDC (x402)",
    description:
      'Adds $1 to $200 (amount_cents 100–20000) in USDC from the assistant\'s own wallet, at 1 USDC = $1, over x402 v2. The first call answers isError with the x402 payment terms, as the x402 MCP transport says: content[0].text is {"x402/error": {"code": 402, "message": …, "data": PaymentRequired}}. Sign the EIP-3009 transfer and repeat the call with the signed payment payload in params._meta["x402/payment"]. The settlement comes back in result._meta["x402/payment-response"]; a payment still confirming on chain is a success saying it is pending (credited once it confirms).',
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
});
