/** Operator USDC refunds: debit (payout) first, send to the paying address, re-credit on failure. */
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payWithX402 } from "../../src/payments/x402/client.js";
import { sendUsdcRefund } from "../../src/payments/x402/refund.js";
import { ADMIN_TOKEN } from "../app.js";
import { type PaymentWorld, startPaymentWorld } from "../chain/world.js";
import { createPaymentsApp, type PaymentsTestApp, x402Env } from "./helpers.js";

let world: PaymentWorld;
let t: PaymentsTestApp;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  world = await startPaymentWorld();
  t = await createPaymentsApp(x402Env(world), { x402: { rpc: { retryCount: 0, cacheTime: 0 } } });
});
afterAll(async () => {
  await t?.close();
  await world?.close();
});

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
