/**
 * Local checks of an x402 payment payload against our terms, before any facilitator call.
 *
 * The facilitator checks all of this too; we check first so that a payment for the wrong
 * amount or recipient is refused with a precise reason without a network round trip, and
 * so that we always know the payer and the EIP-3009 nonce — the durable dedupe key.
 */
import { type Address, getAddress, type Hex, isAddress, isAddressEqual } from "viem";
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

/**
 * Reads the EIP-3009 authorization from a payload. Payer is checksummed (EIP-55) and the
 * nonce lower-cased, so (payer, nonce) is a stable unique key.
 */
export function readAuthorization(payload: PaymentPayload): Eip3009Authorization | undefined {
  const auth = (payload.payload as { authorization?: unknown }).authorization;
  const signature = (payload.payload as { signature?: unknown }).signature;
  if (typeof auth !== "object" || auth === null || typeof signature !== "string") return undefined;
  const a = auth as Record<string, unknown>;
  const strings = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce];
  if (!strings.every((v) => typeof v === "string")) return undefined;
  const [from, to, value, validAfter, validBefore, nonce] = strings as string[];
  if (!from || !to || !isAddress(from) || !isAddress(to)) return undefined;
  if (![value, validAfter, validBefore].every((v) => v !== undefined && UINT.test(v))) {
    return undefined;
  }
  if (!nonce || !NONCE.test(nonce)) return undefined;
  return {
    from: getAddress(from),
    to: getAddress(to),
    value: value as string,
    validAfter: validAfter as string,
    validBefore: validBefore as string,
    nonce: nonce.toLowerCase() as Hex,
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
  if (!isAddressEqual(auth.to, ours.payTo as Address)) {
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
