/**
 * Our own on-chain confirmation of a settled top-up. A facilitator's "success" is a claim;
 * the balance is credited only when our RPC shows a successful receipt with a Transfer of
 * exactly the amount from the payer to us, emitted by the configured token, buried under
 * enough blocks.
 */
import {
  type Address,
  createPublicClient,
  erc20Abi,
  type Hex,
  http,
  isAddressEqual,
  type PublicClient,
  parseAbi,
  parseEventLogs,
  TransactionReceiptNotFoundError,
} from "viem";

/** How the chain RPC client retries and times out. */
export interface RpcClientOptions {
  /** viem retries failed RPC calls 3 times by default; tests set 0 to fail fast. */
  retryCount?: number;
  /** viem caches block numbers for 4 s by default; tests set 0 to see new blocks at once. */
  cacheTime?: number;
  timeoutMs?: number;
}

interface ConfirmTransferInput {
  rpcUrl: string;
  chainId: number;
  asset: Address;
  txHash: Hex;
  payer: Address;
  payTo: Address;
  amountAtomic: bigint | string;
  /** Blocks including the transfer's own; 1 means "mined". */
  confirmations: number;
  client?: RpcClientOptions;
}

type ConfirmResult =
  | { status: "confirmed"; blockNumber: number }
  | { status: "pending"; blockNumber?: number }
  | { status: "failed"; reason: string };

/**
 * Checks a top-up transaction on chain. `pending` means "look again later" (not mined, or
 * mined with too few confirmations); `failed` is final for this transaction. Throws when
 * the RPC cannot be reached or serves another chain — a configuration problem, not a
 * verdict on the payment.
 */
export async function confirmTransfer(input: ConfirmTransferInput): Promise<ConfirmResult> {
  const client = rpcClient(input.rpcUrl, input.client);
  await assertChain(client, input.chainId);
  let receipt: Awaited<ReturnType<PublicClient["getTransactionReceipt"]>>;
  try {
    receipt = await client.getTransactionReceipt({ hash: input.txHash });
  } catch (err) {
    if (err instanceof TransactionReceiptNotFoundError) return { status: "pending" };
    throw err;
  }
  if (receipt.status !== "success") return { status: "failed", reason: "transaction reverted" };
  const amount = BigInt(input.amountAtomic);
  const transfers = parseEventLogs({
    abi: erc20Abi,
    eventName: "Transfer",
    logs: receipt.logs.filter((log) => isAddressEqual(log.address, input.asset)),
  });
  const paid = transfers.some(
    (t) =>
      isAddressEqual(t.args.from, input.payer) &&
      isAddressEqual(t.args.to, input.payTo) &&
      t.args.value === amount,
  );
  if (!paid) {
    return {
      status: "failed",
      reason: `no Transfer of ${amount} from ${input.payer} to ${input.payTo} by ${input.asset} in this transaction`,
    };
  }
  const blockNumber = Number(receipt.blockNumber);
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const depth = Number(head - receipt.blockNumber) + 1;
  if (depth < input.confirmations) return { status: "pending", blockNumber };
  return { status: "confirmed", blockNumber };
}

const authorizationAbi = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
]);

interface AuthorizationUseInput {
  rpcUrl: string;
  chainId: number;
  asset: Address;
  payer: Address;
  nonce: Hex;
  /** Where to start looking for the AuthorizationUsed event (the block when we got the payment). */
  fromBlock: bigint;
  client?: RpcClientOptions;
}

/**
 * Reconciles a payment whose settlement outcome is unknown: asks the token whether the
 * payer's EIP-3009 nonce was used and, if so, in which transaction. Feed the hash to
 * confirmTransfer. A nonce that is still unused after the authorization's validBefore can
 * never be used: the payment did not happen.
 */
export async function findAuthorizationUse(
  input: AuthorizationUseInput,
): Promise<{ used: false } | { used: true; txHash?: Hex }> {
  const client = rpcClient(input.rpcUrl, input.client);
  await assertChain(client, input.chainId);
  const used = await client.readContract({
    address: input.asset,
    abi: authorizationAbi,
    functionName: "authorizationState",
    args: [input.payer, input.nonce],
  });
  if (!used) return { used: false };
  const logs = await client.getLogs({
    address: input.asset,
    event: authorizationAbi[1],
    args: { authorizer: input.payer, nonce: input.nonce },
    fromBlock: input.fromBlock,
    toBlock: "latest",
  });
  // A canceled authorization is "used" too but emits no AuthorizationUsed: no hash then.
  const txHash = logs[0]?.transactionHash ?? undefined;
  return txHash ? { used: true, txHash } : { used: true };
}

/** A viem client of the chain's JSON-RPC. */
export function rpcClient(rpcUrl: string, opts: RpcClientOptions = {}): PublicClient {
  return createPublicClient({
    transport: http(rpcUrl, {
      retryCount: opts.retryCount ?? 3,
      timeout: opts.timeoutMs ?? 10_000,
    }),
    cacheTime: opts.cacheTime ?? 4_000,
  });
}

async function assertChain(client: PublicClient, chainId: number): Promise<void> {
  const actual = await client.getChainId();
  if (actual !== chainId) {
    throw new Error(`RPC serves chain ${actual}, expected ${chainId}: check the x402 rpcUrl`);
  }
}
