/**
 * The payment terms of a USDC top-up (x402 v2 PaymentRequired) and the base64 JSON
 * header codecs.
 *
 * Terms are built here from config alone, without asking the facilitator, so a 402 can
 * be answered even while the facilitator is down. They must stay field-for-field equal
 * to what `x402ResourceServer.buildPaymentRequirements` produces, because the server
 * deep-compares the payer's `accepted` copy against them (terms.test.ts checks this).
 */
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from "@x402/core/http";
import { parsePaymentPayload, parsePaymentRequired } from "@x402/core/schemas";
import type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  SettleResponse,
} from "@x402/core/types";
import type { X402Config } from "./config.js";

export type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse };

/** The paid endpoint as the 402 terms name it. */
export interface X402Resource {
  /** Absolute URL of the paid endpoint, e.g. https://api.example.com/wallet/topup/crypto. */
  url: string;
  description: string;
}

/** USDC has 6 decimals: one cent is 10^4 atomic units. */
const ATOMIC_PER_CENT = 10_000n;

/** Largest header we decode; a real payment payload is ~1 KB. */
const MAX_PAYMENT_HEADER_CHARS = 16_384;

/** Cents in USDC's atomic units (6 decimals), as a string. */
export function centsToAtomic(amountCents: number): string {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
    throw new RangeError(`amountCents must be a positive integer, got ${amountCents}`);
  }
  return (BigInt(amountCents) * ATOMIC_PER_CENT).toString();
}

/** The single `accepts` entry for a top-up of `amountCents`. */
export function buildRequirements(cfg: X402Config, amountCents: number): PaymentRequirements {
  return {
    scheme: "exact",
    network: cfg.network,
    amount: centsToAtomic(amountCents),
    asset: cfg.asset,
    payTo: cfg.payTo,
    maxTimeoutSeconds: cfg.maxTimeoutSeconds,
    // The EIP-712 domain the payer signs against. No assetTransferMethod: EIP-3009 is the
    // exact scheme's default, and the SDK never puts the default on the wire.
    extra: { name: cfg.assetName, version: cfg.assetVersion },
  };
}

/** The x402 v2 PaymentRequired for a top-up; `error` explains a refused attempt. */
export function buildPaymentRequired(
  cfg: X402Config,
  amountCents: number,
  resource: X402Resource,
  error?: string,
): PaymentRequired {
  return {
    x402Version: 2,
    ...(error ? { error } : {}),
    resource: {
      url: resource.url,
      description: resource.description,
      mimeType: "application/json",
    },
    accepts: [buildRequirements(cfg, amountCents)],
  };
}

/** Base64 JSON for the PAYMENT-REQUIRED header. */
export function encodeHeader(paymentRequired: PaymentRequired): string {
  return encodePaymentRequiredHeader(paymentRequired);
}

/** Base64 JSON for the PAYMENT-RESPONSE header (the settlement receipt). */
export function encodeSettlementHeader(settlement: SettleResponse): string {
  return encodePaymentResponseHeader(settlement);
}

/**
 * The MCP transport carries the payment payload as an object in `_meta["x402/payment"]`; its
 * header form lets it take the very same path (decode, validate, settle) as REST.
 */
export function encodePaymentPayloadHeader(payload: unknown): string {
  // cast: MCP's _meta payload is encoded as given; decodePaymentSignature validates it on the way back in
  return encodePaymentSignatureHeader(payload as PaymentPayload);
}

/** The settlement receipt as an object, for MCP's `_meta["x402/payment-response"]`. */
export function decodeSettlementHeader(header: string): SettleResponse {
  // cast: the header is the facilitator's settlement, encoded by encodeSettlementHeader
  return decodePaymentResponseHeader(header) as SettleResponse;
}

export class MalformedPaymentError extends Error {
  override name = "MalformedPaymentError";
}

/**
 * Decodes and validates a PAYMENT-SIGNATURE header into an x402 payment payload.
 * Throws MalformedPaymentError with a sentence the payer can act on.
 */
export function decodePaymentSignature(header: string): PaymentPayload {
  const trimmed = header.trim();
  if (trimmed.length === 0) throw new MalformedPaymentError("PAYMENT-SIGNATURE is empty.");
  if (trimmed.length > MAX_PAYMENT_HEADER_CHARS) {
    throw new MalformedPaymentError("PAYMENT-SIGNATURE is too long to be an x402 payment.");
  }
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(trimmed);
  } catch {
    throw new MalformedPaymentError("PAYMENT-SIGNATURE must be base64-encoded JSON.");
  }
  const parsed = parsePaymentPayload(decoded);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
    throw new MalformedPaymentError(
      `PAYMENT-SIGNATURE is not an x402 payment payload (${issue?.message ?? "invalid"}${where}).`,
    );
  }
  if (parsed.data.x402Version !== 2) {
    throw new MalformedPaymentError("PAYMENT-SIGNATURE must use x402 version 2.");
  }
  // cast: the SDK's zod schema checked it; its parsed type is looser than its PaymentPayload type
  return parsed.data as PaymentPayload;
}

/** Decodes a PAYMENT-REQUIRED header (the payer's side). */
export function decodePaymentRequired(header: string): PaymentRequired {
  let decoded: unknown;
  try {
    decoded = decodePaymentRequiredHeader(header.trim());
  } catch {
    throw new MalformedPaymentError("PAYMENT-REQUIRED must be base64-encoded JSON.");
  }
  const parsed = parsePaymentRequired(decoded);
  if (!parsed.success || parsed.data.x402Version !== 2) {
    throw new MalformedPaymentError("PAYMENT-REQUIRED is not an x402 version 2 PaymentRequired.");
  }
  // cast: the SDK's zod schema checked it; its parsed type is looser than its PaymentRequired type
  return parsed.data as PaymentRequired;
}
