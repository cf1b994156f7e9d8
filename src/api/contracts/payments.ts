/** Money in: a card checkout link, and USDC over x402 v2. */
import { defineContract } from "../operation.js";
import { TopupBody, TopupCheckout, UsdcCredited, UsdcPending, UsdcTopupBody } from "../payments.js";

const TAGS = ["Balance"] as const;

/** A card checkout link that adds money to the balance once paid. */
export const createTopUpLink = defineContract({
  id: "createTopUpLink",
  auth: "key",
  input: TopupBody,
  output: TopupCheckout,
  errors: ["unavailable", "upstream_failed"],
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
      "Nothing is charged until paid. A card checkout link (checkout_url) for the owner; the balance is credited once they pay.",
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
});

/** A USDC top-up over x402 v2: 402 with the terms, then the signed payment. */
export const topUpWithUsdc = defineContract({
  id: "topUpWithUsdc",
  auth: "key",
  input: UsdcTopupBody,
  output: UsdcCredited,
  errors: ["payment_required", "unavailable"],
  policies: { spends: true, rate: "spend", payment: "x402" },
  remedies: {
    unavailable: (refer) => `Add money by card with ${refer(createTopUpLink)} instead.`,
    // The retry in the caller's words: a header over REST (named "POST /…"), `_meta` over MCP.
    payment_required: (refer) => {
      const retry = refer(topUpWithUsdc);
      return retry.startsWith("POST ")
        ? `Then repeat ${retry} with the signed payment (base64) in the PAYMENT-SIGNATURE header.`
        : `Then call ${retry} again with the signed payment payload in params._meta["x402/payment"].`;
    },
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
      'Adds $1–$200 in USDC from your own wallet over x402 v2 (1 USDC = $1). The first call answers the terms as an error ({"x402/error": {code: 402, data: PaymentRequired}}): sign and call again with the payload in _meta["x402/payment"]. Receipt: _meta["x402/payment-response"]; pending: credited once the chain confirms.',
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
});
