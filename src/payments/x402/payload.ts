/**
 * Local checks of an x402 payment payload against our terms, before any facilitator call.
 *
 * The facilitator checks all of this too; we check first so that a payment for the wrong
 * amount or recipient is refused with a precise reason without a network round trip, and
 * so that we always know the payer and the EIP-3009 nonce — the durable dedupe key.
 */
import { type Address, getAddress, type Hex, isAddress, isAddressEqual, isHex } from "viem";
import { z } from "zod";
import type { PaymentPayload, PaymentRequirements } from "./terms.js";

interface Eip3009Authorization {
  from: Address;
  to: Address;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

type PayloadCheck =
  | { ok: true; payer: Address; nonce: Hex; authorization: Eip3009Authorization }
  | { ok: false; code: string; payer?: Address; nonce?: Hex };

/** The facilitator refuses authorizations that expire within 6 s; so do we. */
const EXPIRY_MARGIN_SECONDS = 6n;

const UINT = /^\d{1,78}$/;
const NONCE = /^0x[0-9a-fA-F]{64}$/;

/** An EIP-3009 payload's shape: its authorization's fields as strings, and a signature. */
const signedAuthorizationSchema = z.object({
  authorization: z.object({
    from: z.string(),
    to: z.string(),
    value: z.string().regex(UINT),
    validAfter: z.string().regex(UINT),
    validBefore: z.string().regex(UINT),
    nonce: z.string().regex(NONCE),
  }),
  signature: z.string(),
});

/**
 * Reads the EIP-3009 authorization from a payload. Payer is checksummed (EIP-55) and the
 * nonce lower-cased, so (payer, nonce) is a stable unique key.
 */
export function readAuthorization(payload: PaymentPayload): Eip3009Authorization | undefined {
  const parsed = signedAuthorizationSchema.safeParse(payload.payload);
  if (!parsed.success) return undefined;
  const { from, to, value, validAfter, validBefore, nonce } = parsed.data.authorization;
  const lowerNonce = nonce.toLowerCase();
  if (!isAddress(from) || !isAddress(to) || !isHex(lowerNonce)) return undefined;
  return {
    from: getAddress(from),
    to: getAddress(to),
    value,
    validAfter,
    validBefore,
    nonce: lowerNonce,
  };
}

/** Which term the payer's `accepted` copy disagrees on, if any (addresses case-insensitive). */
function acceptedMismatch(
  accepted: PaymentRequirements,
  ours: PaymentRequirements,
): string | undefined {
  if (accepted.scheme !== ours.scheme) return "scheme_mismatch";
  if (accepted.network !== ours.network) return "network_mismatch";
  if (!sameAddress(accepted.asset, ours.asset)) return "asset_mismatch";
  if (!sameAddress(accepted.payTo, ours.payTo)) return "recipient_mismatch";
  if (accepted.amount !== ours.amount) return "amount_mismatch";
  return undefined;
}

/**
 * Checks what the payer signed against our requirements: the accepted terms, and the
 * authorization's recipient, value and expiry.
 */
export function checkPayload(
  payload: PaymentPayload,
  ours: PaymentRequirements,
  nowSeconds: number,
): PayloadCheck {
  const auth = readAuthorization(payload);
  if (!auth) return { ok: false, code: "unsupported_payload" };
  const who = { payer: auth.from, nonce: auth.nonce };
  const termsProblem = acceptedMismatch(payload.accepted, ours);
  if (termsProblem) return { ok: false, code: termsProblem, ...who };
  if (!isAddress(ours.payTo) || !isAddressEqual(auth.to, ours.payTo)) {
    return { ok: false, code: "recipient_mismatch", ...who };
  }
  if (auth.value !== ours.amount) return { ok: false, code: "amount_mismatch", ...who };
  if (BigInt(auth.validBefore) < BigInt(Math.floor(nowSeconds)) + EXPIRY_MARGIN_SECONDS) {
    return { ok: false, code: "authorization_expired", ...who };
  }
  return { ok: true, ...who, authorization: auth };
}

function sameAddress(a: string, b: string): boolean {
  return isAddress(a) && isAddress(b) && isAddressEqual(a, b);
}
