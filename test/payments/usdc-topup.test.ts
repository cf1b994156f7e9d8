/**
 * USDC top-ups end to end, offline: ganache + TestUSDC + an in-process x402 facilitator, the
 * official x402 client paying, kinora's route settling, confirming and crediting.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payWithX402 } from "../../src/payments/x402/client.js";
import { sendUsdcRefund } from "../../src/payments/x402/refund.js";
import { buildRequirements } from "../../src/payments/x402/terms.js";
import { confirmUsdcPayments } from "../../src/services/payments/usdc-confirmer.js";
import { ADMIN_TOKEN } from "../app.js";
import { signPayment } from "../chain/sign.js";
import { type PaymentWorld, startPaymentWorld } from "../chain/world.js";
import { createPaymentsApp, type PaymentsTestApp, x402Env } from "./helpers.js";

let world: PaymentWorld;
let t: PaymentsTestApp;

beforeAll(async () => {
  world = await startPaymentWorld({ confirmationTimeoutMs: 2000 });
  t = await createPaymentsApp(x402Env(world), { x402: { rpc: { retryCount: 0, cacheTime: 0 } } });
});
afterAll(async () => {
  await t?.close();
  await world?.close();
});

const topup = (key: string, amount: number, signature?: string) =>
  t.call("POST", "/wallet/topup/crypto", {
    key,
    body: { amount_cents: amount },
    headers: signature ? { "payment-signature": signature } : {},
  });

async function pay(key: string, amount: number, privateKey: Hex = world.chain.payer.privateKey) {
  const terms = await topup(key, amount);
  expect(terms.status).toBe(402);
  const payment = await payWithX402({
    privateKey,
    paymentRequired: terms.headers.get("payment-required") as string,
    maxAmountAtomic: 200_000_000n,
    allowedAssets: [{ network: world.config.network, asset: world.config.asset }],
  });
  return payment.header;
}

describe("POST /wallet/topup/crypto (x402 v2)", () => {
  it("answers 402 with the terms in PAYMENT-REQUIRED and the body", async () => {
    const w = await t.newWallet();
    const res = await topup(w.key, 500);
    expect(res.status).toBe(402);
    const header = decodePaymentRequiredHeader(res.headers.get("payment-required") as string);
    expect(header).toEqual(res.body.payment_required);
    expect(header.accepts[0]).toMatchObject({
      scheme: "exact",
      network: world.config.network,
      amount: "5000000",
      payTo: world.config.payTo,
    });
    // The terms carry the checksummed (EIP-55) form of the configured asset address.
    const asset = header.accepts[0]?.asset ?? "";
    expect(asset.toLowerCase()).toBe(world.config.asset.toLowerCase());
    expect(asset).not.toBe(asset.toLowerCase());
    expect(res.body.detail).toMatch(/PAYMENT-SIGNATURE/);
  });

  it("credits a paid top-up at once: 200, receipt in PAYMENT-RESPONSE, balance credited", async () => {
    const w = await t.newWallet();
    const before = await world.chain.usdcBalance(world.config.payTo);
    const res = await topup(w.key, 150, await pay(w.key, 150));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ credited_cents: 150, wallet: { balance_cents: 150 } });
    expect(res.body.explorer).toBe(`http://explorer.test/tx/${res.body.transaction}`);
    const receipt = decodePaymentResponseHeader(res.headers.get("payment-response") as string);
    expect(receipt).toMatchObject({ success: true, transaction: res.body.transaction });
    expect(await world.chain.usdcBalance(world.config.payTo)).toBe(before + 1_500_000n);
    expect(await t.ledger(w.walletId)).toEqual([
      { kind: "topup", amount_cents: 150, reference: res.body.transaction },
    ]);
  });

  it("credits a replayed signature once: sequentially, concurrently, and from another wallet", async () => {
    const w = await t.newWallet();
    const other = await t.newWallet();
    const signature = await pay(w.key, 200);
    const results = await Promise.all([1, 2, 3, 4].map(() => topup(w.key, 200, signature)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    const again = await topup(w.key, 200, signature);
    expect(again.status).toBe(200);
    expect(again.body.credited_cents).toBe(200);
    const stolen = await topup(other.key, 200, signature);
    expect(stolen.status).toBe(402);
    expect(stolen.body.detail).toMatch(/already used/);
    expect(await t.balance(w.walletId)).toBe(200);
    expect(await t.balance(other.walletId)).toBe(0);
  });

  it("answers 202 while the chain does not mine, then the confirmer credits exactly once", async () => {
    const w = await t.newWallet();
    const signature = await pay(w.key, 300);
    await world.chain.setAutomine(false);
    let res: Awaited<ReturnType<typeof topup>>;
    try {
      res = await topup(w.key, 300, signature);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body).toMatchObject({ status: "pending" });
      expect(res.body.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await t.balance(w.walletId)).toBe(0);
      expect((await confirmUsdcPayments(t.payments)).credited).toBe(0);
      await world.chain.mine();
    } finally {
      await world.chain.setAutomine(true);
    }
    t.clock.advance(60_000);
    const [a, b] = await Promise.all([
      confirmUsdcPayments(t.payments),
      confirmUsdcPayments(t.payments),
    ]);
    expect(a.credited + b.credited).toBe(1);
    expect((await confirmUsdcPayments(t.payments)).credited).toBe(0);
    expect(await t.balance(w.walletId)).toBe(300);
    const replay = await topup(w.key, 300, signature);
    expect(replay.status).toBe(200);
    expect(await t.balance(w.walletId)).toBe(300);
  });

  it("refuses wrong amount, wrong payee, expired and unfunded payments with 402, crediting nothing", async () => {
    const w = await t.newWallet();
    const wrongAmount = await topup(w.key, 200, await pay(w.key, 100));
    expect(wrongAmount.status).toBe(402);
    expect(wrongAmount.body.detail).toMatch(/different amount/);
    expect(wrongAmount.headers.get("payment-required")).toBeTruthy();

    const stranger = { ...world.config, payTo: world.chain.poorPayer.address };
    const wrongPayee = await signPayment({
      privateKey: world.chain.payer.privateKey,
      chainId: world.chain.chainId,
      requirements: buildRequirements(stranger, 100),
    });
    const payee = await topup(w.key, 100, wrongPayee.header);
    expect(payee.status).toBe(402);
    expect(payee.body.detail).toMatch(/another address/);

    const expired = await signPayment({
      privateKey: world.chain.payer.privateKey,
      chainId: world.chain.chainId,
      requirements: buildRequirements(world.config, 100),
      sign: { validBefore: String(Math.floor(Date.now() / 1000) - 60) },
    });
    const exp = await topup(w.key, 100, expired.header);
    expect(exp.status).toBe(402);
    expect(exp.body.detail).toMatch(/expired/);

    const poor = await topup(w.key, 100, await pay(w.key, 100, world.chain.poorPayer.privateKey));
    expect(poor.status).toBe(402);
    expect(poor.body.payment_required.accepts).toHaveLength(1);

    const garbage = await topup(w.key, 100, "bm90IGEgcGF5bWVudA==");
    expect(garbage.status).toBe(402);
    expect(await t.balance(w.walletId)).toBe(0);
  });

  it("answers 503 when the facilitator is down, crediting nothing; the same signature works later", async () => {
    const w = await t.newWallet();
    const signature = await pay(w.key, 100);
    world.facilitator.faults.status = 503;
    let res: Awaited<ReturnType<typeof topup>>;
    try {
      res = await topup(w.key, 100, signature);
    } finally {
      world.facilitator.faults.status = undefined;
    }
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/unavailable right now; nothing was taken/);
    expect(await t.balance(w.walletId)).toBe(0);
    const retry = await topup(w.key, 100, signature);
    expect(retry.status).toBe(200);
    expect(await t.balance(w.walletId)).toBe(100);
  });

  it("persists an unknown settlement outcome (facilitator timeout), answers 202 and reconciles on chain", async () => {
    const w = await t.newWallet();
    const signature = await pay(w.key, 400);
    world.facilitator.faults.settleDelayMs = 4500;
    let res: Awaited<ReturnType<typeof topup>>;
    try {
      res = await topup(w.key, 400, signature);
    } finally {
      world.facilitator.faults.settleDelayMs = undefined;
    }
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.status).toBe("pending");
    expect(await t.balance(w.walletId)).toBe(0);
    const report = await confirmUsdcPayments(t.payments);
    expect(report.credited).toBe(1);
    expect(await t.balance(w.walletId)).toBe(400);
    expect((await confirmUsdcPayments(t.payments)).credited).toBe(0);
  });
});

// Operator USDC refunds: debit (payout) first, send to the paying address, re-credit on failure.
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function usdcTopup(key: string, amount: number) {
  const terms = await t.call("POST", "/wallet/topup/crypto", {
    key,
    body: { amount_cents: amount },
  });
  const payment = await payWithX402({
    privateKey: world.chain.payer.privateKey,
    paymentRequired: terms.headers.get("payment-required") as string,
    maxAmountAtomic: 200_000_000n,
    allowedAssets: [{ network: world.config.network, asset: world.config.asset }],
  });
  const res = await t.call("POST", "/wallet/topup/crypto", {
    key,
    body: { amount_cents: amount },
    headers: { "payment-signature": payment.header },
  });
  expect(res.status).toBe(200);
}

const refund = (walletId: string, body: unknown = {}) =>
  t.call("POST", `/admin/wallets/${walletId}/usdc-refund`, { body, headers: admin });

describe("POST /admin/wallets/{id}/usdc-refund", () => {
  it("sends unused USDC-funded balance back to the payer, debiting the wallet once", async () => {
    const w = await t.newWallet();
    await usdcTopup(w.key, 500);
    const payerBefore = await world.chain.usdcBalance(world.chain.payer.address);
    const res = await refund(w.walletId, { amount_cents: 200 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.refund).toMatchObject({
      to: world.chain.payer.address,
      amount_cents: 200,
      status: "sent",
      balance_cents: 300,
    });
    expect(await world.chain.usdcBalance(world.chain.payer.address)).toBe(payerBefore + 2_000_000n);
    const ledger = await t.ledger(w.walletId);
    expect(ledger.at(-1)).toEqual({
      kind: "payout",
      amount_cents: -200,
      reference: res.body.refund.id,
    });
    // The rest by default; then nothing is left to refund.
    const rest = await refund(w.walletId);
    expect(rest.body.refund).toMatchObject({ amount_cents: 300, status: "sent", balance_cents: 0 });
    expect((await refund(w.walletId)).status).toBe(409);
  });

  it("refuses more than was paid in USDC, and more than the balance", async () => {
    const w = await t.newWallet(1000); // card-funded money is not refundable in USDC
    await usdcTopup(w.key, 100);
    const tooMuch = await refund(w.walletId, { amount_cents: 101 });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.detail).toMatch(/At most \$1.00/);
    const never = await t.newWallet(1000);
    expect((await refund(never.walletId)).status).toBe(409);
    expect((await refund("wal_doesnotexist")).status).toBe(404);
    expect(
      (await t.call("POST", `/admin/wallets/${w.walletId}/usdc-refund`, { body: {} })).status,
    ).toBe(401);
  });

  it("re-credits the wallet when the send fails", async () => {
    const w = await t.newWallet();
    await usdcTopup(w.key, 300);
    // Drain the operator's USDC so the transfer reverts in simulation, before broadcast.
    const operatorUsdc = await world.chain.usdcBalance(world.chain.operator.address);
    await sendUsdcRefund({
      ...world.config,
      privateKey: world.chain.operator.privateKey,
      to: world.chain.deployer.address,
      amountAtomic: operatorUsdc,
      client: { retryCount: 0, cacheTime: 0, pollingIntervalMs: 50 },
    });
    const res = await refund(w.walletId, { amount_cents: 300 });
    expect(res.status).toBe(200);
    expect(res.body.refund).toMatchObject({ status: "failed", balance_cents: 300 });
    const kinds = (await t.ledger(w.walletId)).map((e) => [e.kind, e.amount_cents]);
    expect(kinds).toEqual([
      ["topup", 300],
      ["payout", -300],
      ["adjustment", 300],
    ]);
    await world.chain.mint(world.chain.operator.address, operatorUsdc as bigint);
    const retry = await refund(w.walletId, { amount_cents: 300 });
    expect(retry.body.refund).toMatchObject({ status: "sent", balance_cents: 0 });
    expect(world.chain.payer.address as Hex).toBe(retry.body.refund.to);
  });
});
