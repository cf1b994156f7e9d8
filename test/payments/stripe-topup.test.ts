import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN } from "../app.js";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server.js";
import { createPaymentsApp, type PaymentsTestApp } from "./helpers.js";

const SECRET_KEY = "sk_test_kinorapayments";
const WEBHOOK_SECRET = "whsec_kinorapayments";

let t: PaymentsTestApp;
let fake: FakeStripe;

beforeAll(async () => {
  // The fake signs with the real clock; the app verifies with its test clock (set to match).
  fake = await startFakeStripe({ webhookSecret: WEBHOOK_SECRET, apiKey: SECRET_KEY });
  // STRIPE_API_BASE is how an operator points the SDK at a local Stripe mock too.
  t = await createPaymentsApp({
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: `http://127.0.0.1:${fake.apiBase.port}`,
  });
  t.clock.set(new Date());
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

/** Posts a recorded event to the webhook, in-process, as Stripe would (signed now by default). */
async function deliver(eventId: string, opts?: { timestampSec?: number; secret?: string }) {
  const { payload, header } = fake.sign(eventId, opts);
  return t.call("POST", "/webhooks/stripe", {
    body: payload,
    headers: { "stripe-signature": header, "content-type": "application/json; charset=utf-8" },
  });
}

async function openTopup(key: string, amount = 2500) {
  const res = await t.call("POST", "/wallet/topup", {
    key,
    body: { amount_cents: amount, email: "payer@example.com" },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const row = await t.payments.platform.db
    .withTables<{ checkouts: { id: string; provider_session_id: string } }>()
    .selectFrom("checkouts")
    .select("provider_session_id")
    .where("id", "=", res.body.checkout_id)
    .executeTakeFirstOrThrow();
  return { ...res.body, sessionId: row.provider_session_id } as {
    checkout_url: string;
    checkout_id: string;
    sessionId: string;
  };
}

describe("card top-ups through Stripe (fake Stripe on 127.0.0.1)", () => {
  it("opens a Stripe Checkout session for the amount, with our return pages", async () => {
    const w = await t.newWallet();
    const co = await openTopup(w.key, 2500);
    expect(co.checkout_url).toContain(`${fake.url}/c/pay/`);
    const session = fake.sessions.get(co.sessionId);
    expect(session).toMatchObject({
      amount_total: 2500,
      client_reference_id: co.checkout_id,
      customer_email: "payer@example.com",
    });
    expect(String(session?.success_url)).toContain(`/checkout/${co.checkout_id}/done`);
  });

  it("credits once when the paid event arrives, and once more deliveries change nothing", async () => {
    const w = await t.newWallet();
    const co = await openTopup(w.key, 2500);
    const event = await fake.completeSession(co.sessionId);
    const first = await deliver(event.id);
    expect(first.status).toBe(200);
    expect(first.body.outcome).toBe("credited");
    const again = await Promise.all([deliver(event.id), deliver(event.id)]);
    expect(again.map((r) => r.body.outcome)).toEqual(["duplicate", "duplicate"]);
    expect(await t.balance(w.walletId)).toBe(2500);
    expect(await t.ledger(w.walletId)).toEqual([
      { kind: "topup", amount_cents: 2500, reference: co.checkout_id },
    ]);
  });

  it("handles out-of-order events: async success before the unpaid completion, expiry after payment", async () => {
    const w = await t.newWallet();
    const co = await openTopup(w.key, 1000);
    const completedUnpaid = await fake.completeSession(co.sessionId, { paymentStatus: "unpaid" });
    const succeeded = await fake.succeedAsyncPayment(co.sessionId);
    expect((await deliver(succeeded.id)).body.outcome).toBe("credited");
    expect((await deliver(completedUnpaid.id)).body.outcome).toBe("ignored");
    const expired = await fake.sendEvent("checkout.session.expired", {
      ...(fake.sessions.get(co.sessionId) as object),
      status: "expired",
    });
    expect((await deliver(expired.id)).status).toBe(200);
    expect(await t.balance(w.walletId)).toBe(1000);
    const page = await (await t.app.request(`/checkout/${co.checkout_id}/done`)).text();
    expect(page).toContain("Payment received");
  });

  it("does not credit a completed session whose payment has not arrived", async () => {
    const w = await t.newWallet();
    const co = await openTopup(w.key, 700);
    const unpaid = await fake.completeSession(co.sessionId, { paymentStatus: "unpaid" });
    expect((await deliver(unpaid.id)).status).toBe(200);
    expect(await t.balance(w.walletId)).toBe(0);
  });

  it("refuses forged and stale signatures with 400 and credits nothing", async () => {
    const w = await t.newWallet();
    const co = await openTopup(w.key, 900);
    const event = await fake.completeSession(co.sessionId);
    const forged = await deliver(event.id, { secret: "whsec_someoneelse" });
    expect(forged.status).toBe(400);
    expect(forged.body.detail).toMatch(/does not match/);
    const stale = await deliver(event.id, { timestampSec: Math.floor(Date.now() / 1000) - 3600 });
    expect(stale.status).toBe(400);
    expect(stale.body.detail).toMatch(/too old/);
    const unsigned = await t.call("POST", "/webhooks/stripe", {
      body: fake.sign(event.id).payload,
    });
    expect(unsigned.status).toBe(400);
    expect(await t.balance(w.walletId)).toBe(0);
    // The genuine delivery still works afterwards: refusals stored nothing.
    expect((await deliver(event.id)).body.outcome).toBe("credited");
    expect(await t.balance(w.walletId)).toBe(900);
  });

  it("holds a validly signed payment of another amount for the operator instead of crediting it", async () => {
    const w = await t.newWallet();
    const co = await openTopup(w.key, 2000);
    fake.completeSession(co.sessionId);
    const session = fake.sessions.get(co.sessionId) as Record<string, unknown>;
    const odd = await fake.sendEvent("checkout.session.completed", {
      ...session,
      amount_total: 50,
    });
    const res = await deliver(odd.id);
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe("held");
    expect(await t.balance(w.walletId)).toBe(0);
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const held = await t.call("GET", "/admin/checkouts/held", { headers: admin });
    expect(held.body.held).toContainEqual(
      expect.objectContaining({
        checkout_id: co.checkout_id,
        amount_cents: 2000,
        paid_amount_cents: 50,
        status: "held",
      }),
    );
    // The operator releases it after review: the amount actually paid is credited, once.
    const released = await t.call("POST", `/admin/checkouts/${co.checkout_id}/release`, {
      headers: admin,
      body: {},
    });
    expect(released.status).toBe(200);
    expect(await t.balance(w.walletId)).toBe(50);
    const twice = await t.call("POST", `/admin/checkouts/${co.checkout_id}/release`, {
      headers: admin,
      body: {},
    });
    expect(twice.status).toBe(409);
    expect(await t.balance(w.walletId)).toBe(50);
  });

  it("ignores events for sessions that are not ours", async () => {
    const event = await fake.sendEvent("checkout.session.completed", {
      id: "cs_test_foreign",
      object: "checkout.session",
      payment_status: "paid",
      amount_total: 5000,
      client_reference_id: "co_notours",
      metadata: {},
    });
    const res = await deliver(event.id);
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe("ignored");
  });
});
