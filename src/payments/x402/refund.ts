/**
 * Refunds unused USDC-funded balance: a plain ERC-20 transfer from the operator wallet back
 * to the paying address (SPEC: refunds of USDC go back in USDC). Used by an operator
 * command; the ledger side (what is refundable, one refund per top-up) is the caller's.
 */
import {
  type Address,
  createWalletClient,
  defineChain,
  erc20Abi,
  type Hex,
  http,
  publicActions,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { RpcClientOptions } from "./confirm.js";

interface UsdcRefundInput {
  rpcUrl: string;
  chainId: number;
  asset: Address;
  privateKey: Hex;
  to: Address;
  amountAtomic: bigint | string;
  /**
   * Called with the hash as soon as the transaction is broadcast, before waiting for the
   * receipt: persist it, so a crash or time-out while waiting can never lead to paying twice.
   */
  onBroadcast?: (txHash: Hex) => void | Promise<void>;
  /** How long to wait for the receipt. */
  timeoutMs?: number;
  client?: RpcClientOptions & { pollingIntervalMs?: number };
}

/** Sends the refund and returns its hash once the receipt shows success; throws otherwise. */
export async function sendUsdcRefund(input: UsdcRefundInput): Promise<Hex> {
  const amount = BigInt(input.amountAtomic);
  if (amount <= 0n) throw new RangeError("amountAtomic must be positive");
  const account = privateKeyToAccount(input.privateKey);
  const chain = defineChain({
    id: input.chainId,
    name: `eip155:${input.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [input.rpcUrl] } },
  });
  const wallet = createWalletClient({
    account,
    chain,
    transport: http(input.rpcUrl, {
      retryCount: input.client?.retryCount ?? 3,
      timeout: input.client?.timeoutMs ?? 10_000,
    }),
    cacheTime: input.client?.cacheTime ?? 4_000,
    pollingInterval: input.client?.pollingIntervalMs ?? 1_000,
  }).extend(publicActions);
  const chainId = await wallet.getChainId();
  if (chainId !== input.chainId) {
    throw new Error(
      `RPC serves chain ${chainId}, expected ${input.chainId}: check the x402 rpcUrl`,
    );
  }
  // Simulating first turns a revert (e.g. the operator lacks USDC) into a clear error
  // before anything is broadcast.
  const { request } = await wallet.simulateContract({
    account,
    address: input.asset,
    abi: erc20Abi,
    functionName: "transfer",
    args: [input.to, amount],
  });
  const txHash = await wallet.writeContract(request);
  await input.onBroadcast?.(txHash);
  const receipt = await wallet.waitForTransactionReceipt({
    hash: txHash,
    timeout: input.timeoutMs ?? 120_000,
  });
  if (receipt.status !== "success") throw new Error(`USDC refund ${txHash} reverted`);
  return txHash;
}
