/**
 * Hand-made x402 payments for tests that need what the official client refuses to build:
 * expired authorizations, amounts that disagree with the terms, forged fields.
 */
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { authorizationTypes } from "@x402/evm";
import { type Address, getAddress, type Hex, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

export interface AuthorizationFields {
  from: Address;
  to: Address;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

export interface SignPaymentInput {
  privateKey: Hex;
  chainId: number;
  /** The terms the payer claims to accept (copied into `accepted`). */
  requirements: PaymentRequirements;
  /** Overrides of the signed authorization (default: exactly the terms, valid 5 minutes). */
  sign?: Partial<AuthorizationFields>;
  /** Overrides applied after signing, to forge a payload whose signature no longer fits. */
  tamper?: Partial<AuthorizationFields>;
  resourceUrl?: string;
}

export function randomNonce(): Hex {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

export async function signPayment(
  input: SignPaymentInput,
): Promise<{ header: string; payload: PaymentPayload }> {
  const account = privateKeyToAccount(input.privateKey);
  const req = input.requirements;
  const now = Math.floor(Date.now() / 1000);
  const authorization: AuthorizationFields = {
    from: account.address,
    to: getAddress(req.payTo),
    value: req.amount,
    validAfter: "0",
    validBefore: String(now + 300),
    nonce: randomNonce(),
    ...input.sign,
  };
  const signature = await account.signTypedData({
    domain: {
      name: String(req.extra.name),
      version: String(req.extra.version),
      chainId: input.chainId,
      verifyingContract: getAddress(req.asset),
    },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      from: authorization.from,
      to: authorization.to,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    },
  });
  const payload: PaymentPayload = {
    x402Version: 2,
    resource: { url: input.resourceUrl ?? "http://127.0.0.1/wallet/topup/crypto" },
    accepted: req,
    payload: { authorization: { ...authorization, ...input.tamper }, signature },
  };
  return { header: encodePaymentSignatureHeader(payload), payload };
}
