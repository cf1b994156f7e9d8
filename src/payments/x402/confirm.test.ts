import { type Address, createWalletClient, erc20Abi, type Hex, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalChain, startLocalChain } from "../../../test/chain/local-chain.js";
import { randomNonce } from "../../../test/chain/sign.js";
import { confirmTransfer, findAuthorizationUse } from "./confirm.js";
import { sendUsdcRefund } from "./refund.js";

const fast = { retryCount: 0, cacheTime: 0 };
let chain: LocalChain;

beforeAll(async () => {
  chain = await startLocalChain();
});

afterAll(async () => {
  await chain?.close();
});

/** A plain ERC-20 transfer from the payer, standing in for a settled top-up. */
async function payerTransfer(to: Address, amount: bigint, opts: { gas?: bigint } = {}) {
  const wallet = createWalletClient({
    chain: chain.chain,
    transport: http(chain.rpcUrl, { retryCount: 0 }),
    account: chain.payer.account,
  });
  const hash = await wallet.writeContract({
    address: chain.usdc,
    abi: erc20Abi,
    functionName: "transfer",
    args: [to, amount],
    ...opts,
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  return hash;
}

function expected(txHash: Hex, overrides: Partial<Parameters<typeof confirmTransfer>[0]> = {}) {
  return {
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    asset: chain.usdc,
    txHash,
    payer: chain.payer.address,
    payTo: chain.operator.address,
    amountAtomic: 2_000_000n,
    confirmations: 1,
    client: fast,
    ...overrides,
  };
}

describe("confirmTransfer", () => {
  it("confirms a Transfer of exactly the amount from payer to payTo", async () => {
    const tx = await payerTransfer(chain.operator.address, 2_000_000n);
    expect(await confirmTransfer(expected(tx))).toMatchObject({ status: "confirmed" });
    expect(await confirmTransfer(expected(tx, { amountAtomic: "2000000" }))).toMatchObject({
      status: "confirmed",
    });
  });

  it("rejects a transaction whose Transfer is for another amount, recipient, payer or token", async () => {
    const tx = await payerTransfer(chain.operator.address, 2_000_000n);
    for (const overrides of [
      { amountAtomic: 2_000_001n },
      { amountAtomic: 1_999_999n },
      { payTo: chain.poorPayer.address },
      { payer: chain.poorPayer.address },
      { asset: chain.multicall3 },
    ]) {
      const result = await confirmTransfer(expected(tx, overrides));
      expect(result).toMatchObject({
        status: "failed",
        reason: expect.stringMatching(/no Transfer/),
      });
    }
  });

  it("rejects a reverted transaction", async () => {
    // Explicit gas skips estimation, so the revert lands in a block instead of throwing here.
    const tx = await payerTransfer(chain.operator.address, 10n ** 30n, { gas: 100_000n });
    expect(await confirmTransfer(expected(tx))).toEqual({
      status: "failed",
      reason: "transaction reverted",
    });
  });

  it("waits for the configured number of confirmations", async () => {
    const tx = await payerTransfer(chain.operator.address, 2_000_000n);
    expect(await confirmTransfer(expected(tx, { confirmations: 3 }))).toMatchObject({
      status: "pending",
    });
    await chain.mine(2);
    expect(await confirmTransfer(expected(tx, { confirmations: 3 }))).toMatchObject({
      status: "confirmed",
    });
  });

  it("answers pending for a transaction the chain does not know (yet)", async () => {
    const unknownTx = randomNonce();
    expect(await confirmTransfer(expected(unknownTx))).toEqual({ status: "pending" });
  });

  it("throws when the RPC serves another chain", async () => {
    const tx = await payerTransfer(chain.operator.address, 2_000_000n);
    await expect(confirmTransfer(expected(tx, { chainId: 8453 }))).rejects.toThrow(
      /serves chain 1337, expected 8453/,
    );
  });
});

describe("findAuthorizationUse", () => {
  it("reports a nonce nobody used", async () => {
    const result = await findAuthorizationUse({
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      asset: chain.usdc,
      payer: chain.payer.address,
      nonce: randomNonce(),
      fromBlock: 0n,
      client: fast,
    });
    expect(result).toEqual({ used: false });
  });
});

describe("sendUsdcRefund", () => {
  const refund = (amountAtomic: bigint, onBroadcast?: (hash: Hex) => void) =>
    sendUsdcRefund({
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      asset: chain.usdc,
      privateKey: chain.operator.privateKey,
      to: chain.payer.address,
      amountAtomic,
      onBroadcast,
      client: { ...fast, pollingIntervalMs: 50 },
    });

  it("moves USDC from the operator back to the payer", async () => {
    await payerTransfer(chain.operator.address, 5_000_000n);
    const payerBefore = await chain.usdcBalance(chain.payer.address);
    const operatorBefore = await chain.usdcBalance(chain.operator.address);
    const broadcast: Hex[] = [];
    const tx = await refund(3_000_000n, (hash) => {
      broadcast.push(hash);
    });
    expect(broadcast).toEqual([tx]);
    expect(await chain.usdcBalance(chain.payer.address)).toBe(payerBefore + 3_000_000n);
    expect(await chain.usdcBalance(chain.operator.address)).toBe(operatorBefore - 3_000_000n);
    const asTopup = expected(tx, {
      payer: chain.operator.address,
      payTo: chain.payer.address,
      amountAtomic: 3_000_000n,
    });
    expect(await confirmTransfer(asTopup)).toMatchObject({ status: "confirmed" });
  });

  it("refuses before broadcasting when the operator lacks the USDC", async () => {
    const broadcast: Hex[] = [];
    const onBroadcast = (hash: Hex) => {
      broadcast.push(hash);
    };
    await expect(refund(10n ** 15n, onBroadcast)).rejects.toThrow(/exceeds balance/);
    expect(broadcast).toEqual([]);
  });
});
