/**
 * The whole offline payment world in one call: local chain + facilitator + an X402Config
 * pointing at both.
 *
 *   const world = await startPaymentWorld();
 *   const gateway = createX402Gateway(world.config);
 *   afterAll(() => world.close());
 */
import { validateX402Config, type X402Config } from "../../src/payments/x402/config.js";
import { type FacilitatorHarness, startFacilitator } from "./facilitator.js";
import { type LocalChain, startLocalChain } from "./local-chain.js";

export interface PaymentWorld {
  chain: LocalChain;
  facilitator: FacilitatorHarness;
  config: X402Config;
  close(): Promise<void>;
}

export async function startPaymentWorld(
  opts: { confirmationTimeoutMs?: number; chainId?: number } = {},
): Promise<PaymentWorld> {
  const chain = await startLocalChain({ chainId: opts.chainId });
  let facilitator: FacilitatorHarness;
  try {
    facilitator = await startFacilitator({
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      privateKey: chain.facilitatorSigner.privateKey,
      confirmationTimeoutMs: opts.confirmationTimeoutMs,
    });
  } catch (err) {
    await chain.close();
    throw err;
  }
  const config = validateX402Config({
    network: chain.network,
    chainId: chain.chainId,
    asset: chain.usdc,
    assetName: "USD Coin",
    assetVersion: "2",
    payTo: chain.operator.address,
    facilitatorUrl: facilitator.url,
    facilitatorTimeoutMs: 10_000,
    rpcUrl: chain.rpcUrl,
    confirmations: 1,
    explorerTxUrl: "http://127.0.0.1/explorer/tx/{tx}",
    maxTimeoutSeconds: 300,
    refundPrivateKey: chain.operator.privateKey,
  });
  return {
    chain,
    facilitator,
    config,
    close: async () => {
      await facilitator.close();
      await chain.close();
    },
  };
}
