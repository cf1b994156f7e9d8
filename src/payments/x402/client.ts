/**
 * The paying side of a USDC top-up, for our CLI, MCP glue and tests: signs an EIP-3009
 * authorization for a PaymentRequired with the official x402Client and returns the
 * PAYMENT-SIGNATURE header value.
 *
 * The official client refuses, by default, any payment above $1 and any asset it does not
 * know (e.g. USDC on a test chain) — see its `setSpendControls`. Top-ups go up to $200, so
 * we replace those controls with the payer's own cap, `maxAmountAtomic`, and allow only the
 * listed assets (default: the SDK's known USDC deployments).
 */
import { x402Client } from "@x402/core/client";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { Network, PaymentPayload, PaymentRequired } from "@x402/core/types";
import { findDefaultAsset, toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { type Address, formatUnits, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { decodePaymentRequired } from "./terms.js";

interface PayWithX402Input {
  privateKey: Hex;
  /** Only needed by Permit2-based extensions; EIP-3009 signing is offline. */
  rpcUrl?: string;
  /** The 402 terms, as an object or as the PAYMENT-REQUIRED header value. */
  paymentRequired: PaymentRequired | string;
  /** The most the payer agrees to pay, in atomic units (USDC: 10^6 per dollar). */
  maxAmountAtomic: bigint;
  /** Tokens the payer agrees to pay in. Default: the SDK's known USDC contracts. */
  allowedAssets?: { network: Network; asset: Address }[];
}

interface X402Payment {
  /** Value for the PAYMENT-SIGNATURE header. */
  header: string;
  payload: PaymentPayload;
  payer: Address;
  nonce: Hex;
}

/**
 * Signs the EIP-3009 transfer a PaymentRequired asks for and returns the PAYMENT-SIGNATURE value.
 */
export async function payWithX402(input: PayWithX402Input): Promise<X402Payment> {
  if (input.maxAmountAtomic <= 0n) throw new RangeError("maxAmountAtomic must be positive");
  const paymentRequired =
    typeof input.paymentRequired === "string"
      ? decodePaymentRequired(input.paymentRequired)
      : input.paymentRequired;
  const account = privateKeyToAccount(input.privateKey);
  const scheme = new ExactEvmScheme(
    toClientEvmSigner(account),
    input.rpcUrl ? { rpcUrl: input.rpcUrl } : undefined,
  );
  const cap = input.maxAmountAtomic.toString();
  const allowed = input.allowedAssets ?? knownUsdc(paymentRequired);
  const client = new x402Client().register("eip155:*", scheme).setSpendControls({
    // Stablecoin defaults not listed below are capped at the same amount, in dollars.
    maxAmountPerPayment: `$${formatUnits(input.maxAmountAtomic, 6)}`,
    allowedAssets: allowed.map((a) => ({ ...a, maxAmountPerPayment: cap })),
  });
  // Spend controls still let other SDK-default stablecoins through; pay only in listed ones.
  client.registerPolicy((_version, reqs) =>
    reqs.filter((r) =>
      allowed.some(
        (a) => a.network === r.network && a.asset.toLowerCase() === r.asset.toLowerCase(),
      ),
    ),
  );
  const payload = await client.createPaymentPayload(paymentRequired);
  // cast: the exact scheme's payload the SDK just made carries an EIP-3009 authorization (checked below)
  const auth = (payload.payload as { authorization?: { from: Address; nonce: Hex } }).authorization;
  if (!auth) throw new Error("The x402 client produced no EIP-3009 authorization");
  return {
    header: encodePaymentSignatureHeader(payload),
    payload,
    payer: auth.from,
    nonce: auth.nonce,
  };
}

/** The offered assets the SDK knows as USDC on their network. */
function knownUsdc(paymentRequired: PaymentRequired): { network: Network; asset: Address }[] {
  return (
    paymentRequired.accepts
      .filter((r) => findDefaultAsset(r.asset, r.network)?.symbol === "USDC")
      // cast: the SDK types an asset as string; a known USDC asset is an address
      .map((r) => ({ network: r.network, asset: r.asset as Address }))
  );
}
