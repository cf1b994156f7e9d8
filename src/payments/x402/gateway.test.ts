import { createServer } from "node:net";
import { decodePaymentResponseHeader } from "@x402/core/http";
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signPayment } from "../../../test/chain/sign.js";
import { type PaymentWorld, startPaymentWorld } from "../../../test/chain/world.js";
import { payWithX402 } from "./client.js";
import { confirmTransfer, findAuthorizationUse } from "./confirm.js";
import { createX402Gateway, encodeSettlementResponse, type SettleOutcome } from "./gateway.js";
import { buildRequirements } from "./terms.js";

const resource = { url: "http://127.0.0.1/wallet/topup/crypto", description: "Wallet top-up" };
const fast = { retryCount: 0, cacheTime: 0 };

let world: PaymentWorld;

beforeAll(async () => {
  world = await startPaymentWorld();
});

afterAll(async () => {
  await world?.close();
});

async function pay(amountCents: number, privateKey: Hex = world.chain.payer.privateKey) {
  const gateway = createX402Gateway(world.config);
  return payWithX402({
    privateKey,
    paymentRequired: gateway.paymentRequired(amountCents, resource),
    maxAmountAtomic: 200_000_000n,
    allowedAssets: [{ network: world.config.network, asset: world.config.asset }],
  });
}

async function balances() {
  const { chain } = world;
  return {
    payer: await chain.usdcBalance(chain.payer.address),
    operator: await chain.usdcBalance(chain.operator.address),
  };
}

function confirm(outcome: { txHash: Hex; payer: Hex; amountAtomic: string }, confirmations = 1) {
  return confirmTransfer({
    ...world.config,
    txHash: outcome.txHash,
    payer: outcome.payer,
    amountAtomic: outcome.amountAtomic,
    confirmations,
    client: fast,
  });
}

function expectRefused(outcome: SettleOutcome, code: string) {
  expect(outcome.kind).toBe("refused");
  if (outcome.kind !== "refused") return outcome as never;
  expect(outcome.code).toBe(code);
  expect(outcome.paymentRequired.error).toBe(outcome.reason);
  return outcome;
}

describe("x402 gateway against a local chain and facilitator", () => {
  it("settles a paid top-up, and the transfer confirms on chain", async () => {
    const before = await balances();
    const payment = await pay(150);
    const outcome = await createX402Gateway(world.config).settle(payment.header, 150, resource);

    expect(outcome).toMatchObject({
      kind: "settled",
      payer: world.chain.payer.address,
      nonce: payment.nonce.toLowerCase(),
      amountAtomic: "1500000",
    });
    if (outcome.kind !== "settled") return;
    expect(await confirm(outcome)).toMatchObject({ status: "confirmed" });
    const after = await balances();
    expect(after.payer).toBe(before.payer - 1_500_000n);
    expect(after.operator).toBe(before.operator + 1_500_000n);
    const receipt = decodePaymentResponseHeader(encodeSettlementResponse(outcome));
    expect(receipt).toMatchObject({ success: true, transaction: outcome.txHash });
  });

  it("refuses the same payment header a second time and names its payer and nonce", async () => {
    const gateway = createX402Gateway(world.config);
    const payment = await pay(100);
    const first = await gateway.settle(payment.header, 100, resource);
    expect(first.kind).toBe("settled");
    const between = await balances();

    const second = expectRefused(
      await gateway.settle(payment.header, 100, resource),
      "invalid_exact_evm_nonce_already_used",
    );
    expect(second.reason).toMatch(/already been used/);
    expect(second.payer).toBe(world.chain.payer.address);
    expect(second.nonce).toBe(payment.nonce.toLowerCase());
    expect(await balances()).toEqual(between);
  });

  it("moves money once when the same header is settled twice concurrently", async () => {
    const payment = await pay(300);
    const before = await balances();
    const outcomes = await Promise.all([
      createX402Gateway(world.config).settle(payment.header, 300, resource),
      createX402Gateway(world.config).settle(payment.header, 300, resource),
    ]);
    const kinds = outcomes.map((o) => o.kind).sort();
    expect(kinds).toEqual(["refused", "settled"]);
    // Both may pass verification; the loser's transfer then reverts on chain (the
    // facilitator pays gas for nothing) or fails gas estimation as a used nonce.
    const loser = outcomes.find((o) => o.kind === "refused");
    if (loser?.kind !== "refused") throw new Error("no refused outcome");
    expect(loser.code).toMatch(/nonce_already_used|transaction_failed/);
    if (loser.txHash) {
      const reverted = await confirm({
        txHash: loser.txHash,
        payer: world.chain.payer.address,
        amountAtomic: "3000000",
      });
      expect(reverted).toEqual({ status: "failed", reason: "transaction reverted" });
    }
    expect((await balances()).operator).toBe(before.operator + 3_000_000n);
  });

  it("answers pending while the chain does not mine, then confirms once mined", async () => {
    const { chain } = world;
    const payment = await pay(250);
    await chain.setAutomine(false);
    let outcome: SettleOutcome;
    try {
      outcome = await createX402Gateway(world.config).settle(payment.header, 250, resource);
      expect(outcome.kind).toBe("pending");
      if (outcome.kind !== "pending") return;
      expect(outcome.settlement.errorReason).toBe("settlement_pending");
      expect(await confirm(outcome)).toEqual({ status: "pending" });
      await chain.mine();
    } finally {
      await chain.setAutomine(true);
    }
    expect(await confirm(outcome)).toMatchObject({ status: "confirmed" });
  });

  it("refuses a payment signed for another amount, without asking the facilitator", async () => {
    const before = await balances();
    const calls = world.facilitator.calls.length;
    const payment = await pay(100);
    const outcome = expectRefused(
      await createX402Gateway(world.config).settle(payment.header, 200, resource),
      "amount_mismatch",
    );
    expect(outcome.reason).toMatch(/different amount/);
    expect(outcome.payer).toBe(world.chain.payer.address);
    expect(world.facilitator.calls.length).toBe(calls);
    expect(await balances()).toEqual(before);
  });

  it("refuses a payment made out to another address", async () => {
    const stranger = { ...world.config, payTo: world.chain.poorPayer.address };
    const { header } = await signPayment({
      privateKey: world.chain.payer.privateKey,
      chainId: world.chain.chainId,
      requirements: buildRequirements(stranger, 100),
    });
    const before = await balances();
    const outcome = expectRefused(
      await createX402Gateway(world.config).settle(header, 100, resource),
      "recipient_mismatch",
    );
    expect(outcome.reason).toMatch(/another address/);
    expect(await balances()).toEqual(before);
  });

  it("refuses an authorization altered after signing (facilitator: bad signature)", async () => {
    const { header } = await signPayment({
      privateKey: world.chain.payer.privateKey,
      chainId: world.chain.chainId,
      requirements: buildRequirements(world.config, 100),
      tamper: { validBefore: String(Math.floor(Date.now() / 1000) + 600) },
    });
    const before = await balances();
    expectRefused(
      await createX402Gateway(world.config).settle(header, 100, resource),
      "invalid_exact_evm_signature",
    );
    expect(await balances()).toEqual(before);
  });

  it("refuses an expired authorization, locally and at the facilitator", async () => {
    const { header } = await signPayment({
      privateKey: world.chain.payer.privateKey,
      chainId: world.chain.chainId,
      requirements: buildRequirements(world.config, 100),
      sign: { validBefore: String(Math.floor(Date.now() / 1000) - 60) },
    });
    const before = await balances();
    const local = expectRefused(
      await createX402Gateway(world.config).settle(header, 100, resource),
      "authorization_expired",
    );
    expect(local.reason).toMatch(/expired/);
    // A gateway whose clock runs an hour behind lets it through; the facilitator still refuses.
    const slowClock = { now: () => new Date(Date.now() - 3_600_000) };
    expectRefused(
      await createX402Gateway(world.config, slowClock).settle(header, 100, resource),
      "invalid_exact_evm_payload_authorization_valid_before",
    );
    expect(await balances()).toEqual(before);
  });

  it("refuses a payer without funds with the real reason (thanks to Multicall3)", async () => {
    const gateway = createX402Gateway(world.config);
    const payment = await pay(100, world.chain.poorPayer.privateKey);
    const outcome = expectRefused(
      await gateway.settle(payment.header, 100, resource),
      "invalid_exact_evm_insufficient_balance",
    );
    expect(outcome.reason).toMatch(/does not hold enough USDC/);
    expect(outcome.payer).toBe(world.chain.poorPayer.address);

    // FACTS check: without Multicall3 the facilitator can only say "simulation failed".
    const { chain } = world;
    const code = await chain.publicClient.getCode({ address: chain.multicall3 });
    await chain.rpc("evm_setAccountCode", [chain.multicall3, "0x"]);
    try {
      expectRefused(
        await gateway.settle(payment.header, 100, resource),
        "invalid_exact_evm_transaction_simulation_failed",
      );
    } finally {
      await chain.rpc("evm_setAccountCode", [chain.multicall3, code]);
    }
  });

  it("reports unavailable when the facilitator cannot be reached", async () => {
    const closedPort = await unusedPort();
    const down = { ...world.config, facilitatorUrl: `http://127.0.0.1:${closedPort}` };
    const before = await balances();
    const payment = await pay(100);
    const outcome = await createX402Gateway(down).settle(payment.header, 100, resource);
    expect(outcome).toMatchObject({
      kind: "unavailable",
      reason: expect.stringMatching(/nothing was taken/),
    });
    expect(await balances()).toEqual(before);
  });

  it("reports unavailable when the facilitator answers 5xx, and recovers after", async () => {
    const gateway = createX402Gateway(world.config);
    const faults = world.facilitator.faults;
    const first = await pay(100);
    const second = await pay(100);
    try {
      faults.status = 503; // fails while learning what the facilitator supports
      expect((await gateway.settle(first.header, 100, resource)).kind).toBe("unavailable");
      faults.status = undefined;
      expect((await gateway.settle(first.header, 100, resource)).kind).toBe("settled");
      faults.status = 502; // now fails at /verify
      expect((await gateway.settle(second.header, 100, resource)).kind).toBe("unavailable");
    } finally {
      faults.status = undefined;
    }
  });

  it("reports unknown when settle answers 5xx, and the chain shows nothing was taken", async () => {
    const fromBlock = await world.chain.publicClient.getBlockNumber({ cacheTime: 0 });
    const payment = await pay(100);
    const before = await balances();
    world.facilitator.faults.settleStatus = 500;
    let outcome: SettleOutcome;
    try {
      outcome = await createX402Gateway(world.config).settle(payment.header, 100, resource);
    } finally {
      world.facilitator.faults.settleStatus = undefined;
    }
    expect(outcome).toMatchObject({ kind: "unknown", nonce: payment.nonce.toLowerCase() });
    if (outcome.kind !== "unknown") return;
    const use = await findAuthorizationUse({
      ...world.config,
      ...outcome,
      fromBlock,
      client: fast,
    });
    expect(use).toEqual({ used: false });
    expect(await balances()).toEqual(before);
  });

  it("reports unknown when settle times out, and the nonce reconciles on chain", async () => {
    const fromBlock = await world.chain.publicClient.getBlockNumber({ cacheTime: 0 });
    const impatient = { ...world.config, facilitatorTimeoutMs: 1_000 };
    const payment = await pay(100);
    world.facilitator.faults.settleDelayMs = 2_000;
    let outcome: SettleOutcome;
    try {
      outcome = await createX402Gateway(impatient).settle(payment.header, 100, resource);
    } finally {
      world.facilitator.faults.settleDelayMs = undefined;
    }
    expect(outcome).toMatchObject({
      kind: "unknown",
      payer: world.chain.payer.address,
      nonce: payment.nonce.toLowerCase(),
      amountAtomic: "1000000",
    });
    if (outcome.kind !== "unknown") return;
    const use = await findAuthorizationUse({
      ...world.config,
      ...outcome,
      fromBlock,
      client: fast,
    });
    expect(use.used).toBe(true);
    if (!use.used || !use.txHash) throw new Error("no AuthorizationUsed event found");
    expect(await confirm({ ...outcome, txHash: use.txHash })).toMatchObject({
      status: "confirmed",
    });
  });

  it("refuses malformed headers with a reason that says what is wrong", async () => {
    const gateway = createX402Gateway(world.config);
    const cases: [string, RegExp][] = [
      ["", /empty/],
      ["not base64 at all!", /base64/],
      [Buffer.from("not json").toString("base64"), /base64-encoded JSON/],
      [Buffer.from(JSON.stringify({ hello: 1 })).toString("base64"), /not an x402 payment/],
      ["A".repeat(20_000), /too long/],
    ];
    for (const [header, reason] of cases) {
      const outcome = expectRefused(
        await gateway.settle(header, 100, resource),
        "malformed_payment",
      );
      expect(outcome.reason).toMatch(reason);
    }
  });
});

/** A port nothing listens on: bind an ephemeral port, then release it. */
function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
