/**
 * The USDC services, loaded only when USDC is used: viem and the x402 SDK take about a second
 * to load, and a deployment without USDC (the embedded default) never needs them. Callers
 * (the REST routes, the MCP tool, the background task) import from here.
 */
import type { PaymentsDeps } from "./deps.js";
import { usdcRuntime } from "./usdc-runtime.js";
import type { CryptoTopupInput, CryptoTopupResult } from "./usdc-topups.js";

export { usdcRuntime };

/** A USDC top-up: the 402 terms without a payment, else verify, settle and credit once. */
export async function cryptoTopup(
  deps: PaymentsDeps,
  input: CryptoTopupInput,
): Promise<CryptoTopupResult> {
  usdcRuntime(deps);
  return (await import("./usdc-topups.js")).cryptoTopup(deps, input);
}

/** Sends a wallet's unused USDC-funded balance back to the address that paid it. */
export async function refundUsdc(
  deps: PaymentsDeps,
  input: { walletId: string; amountCents?: number; sendTimeoutMs?: number },
) {
  return (await import("./usdc-refunds.js")).refundUsdc(deps, input);
}

export async function confirmUsdcPayments(deps: PaymentsDeps) {
  if (!deps.usdc) return { checked: 0, credited: 0, failed: 0 };
  return (await import("./usdc-confirmer.js")).confirmUsdcPayments(deps);
}
