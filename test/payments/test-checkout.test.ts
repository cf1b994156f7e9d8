import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutPageToken } from "../../src/payments/test-checkout/provider.js";
import { runPaymentTasksOnce, startPaymentTasks } from "../../src/services/payments/background.js";
import { findCheckout } from "../../src/services/payments/checkouts.js";
import { TEST_PUBLIC_URL } from "../app.js";
import { createPaymentsApp, type PaymentsTestApp } from "./helpers.js";

let t: PaymentsTestApp;

beforeAll(async () => {
  t = await createPaymentsApp();
});
afterAll(async () => {
  await t.close();
});

async function topup(key: string, amount = 1500) {
  const res = await t.call("POST", "/wallet/topup", { key, body: { amount_cents: amount } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    checkout_url: string;
    checkout_id: string;
    amount_cents: number;
    display: string;
  };
}

const token = (id: string) =>
  checkoutPageToken(t.platform.signer, id, t.platform.clock().getTime());
const post = (path: string) => t.app.request(path, { method: "POST" });

describe("POST /wallet/topup with the built-in test checkout", () => {
  it("returns a kinora checkout page link for the amount", async () => {
    const w = await t.newWallet();
    const co = await topup(w.key, 2000);
    expect(co.checkout_url).toBe(`${TEST_PUBLIC_URL}/checkout/${co.checkout_id}`);
    expect(co).toMatchObject({ amount_cents: 2000, display: "$20.00" });
    const page = await t.fetchUrl(co.checkout_url);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain("TEST MODE — no real money");
    expect(html).toContain("$20.00");
    expect(html).toContain(`Balance top-up for wallet ${w.walletId}`);
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self'");
  });

  it("refuses amounts outside 500..20000 and calls without a key", async () => {
    const w = await t.newWallet();
    const low = await t.call("POST", "/wallet/topup", { key: w.key, body: { amount_cents: 499 } });
    expect(low.status).toBe(400);
    expect(low.body.detail).toMatch(/amount_cents/);
    const high = await t.call("POST", "/wallet/topup", {
      key: w.key,
      body: { amount_cents: 20001 },
    });
    expect(high.status).toBe(400);
    expect((await t.call("POST", "/wallet/topup", { body: { amount_cents: 500 } })).status).toBe(
      401,
    );
  });

  it("credits once when Pay is posted, twice or concurrently", async () => {
    const w = await t.newWallet();
    const co = await topup(w.key, 1500);
    const path = `/checkout/${co.checkout_id}/pay?token=${token(co.checkout_id)}`;
    const results = await Promise.all([post(path), post(path), post(path)]);
    for (const r of results) {
      expect(r.status).toBe(303);
      expect(r.headers.get("location")).toBe(`/checkout/${co.checkout_id}/done`);
    }
    expect((await post(path)).status).toBe(303);
    expect(await t.balance(w.walletId)).toBe(1500);
    expect(await t.ledger(w.walletId)).toEqual([
      { kind: "topup", amount_cents: 1500, reference: co.checkout_id },
    ]);
    const done = await (await t.app.request(`/checkout/${co.checkout_id}/done`)).text();
    expect(done).toContain("Payment received");
  });

  it("refuses a form without the page's token", async () => {
    const w = await t.newWallet();
    const co = await topup(w.key);
    const forged = await post(`/checkout/${co.checkout_id}/pay?token=${token("co_other")}`);
    expect(forged.status).toBe(400);
    expect((await post(`/checkout/${co.checkout_id}/pay`)).status).toBe(400);
    expect(await t.balance(w.walletId)).toBe(0);
  });

  it("cancels: nothing credited, and Pay afterwards is refused", async () => {
    const w = await t.newWallet();
    const co = await topup(w.key);
    const cancel = await post(`/checkout/${co.checkout_id}/cancel?token=${token(co.checkout_id)}`);
    expect(cancel.headers.get("location")).toBe(`/checkout/${co.checkout_id}/cancelled`);
    const pay = await post(`/checkout/${co.checkout_id}/pay?token=${token(co.checkout_id)}`);
    expect(pay.status).toBe(410);
    expect(await t.balance(w.walletId)).toBe(0);
    const page = await (await t.app.request(`/checkout/${co.checkout_id}/cancelled`)).text();
    expect(page).toContain("Nothing was charged");
  });

  it("expires stale open checkouts in the background pass; an expired one cannot be paid", async () => {
    const w = await t.newWallet();
    const co = await topup(w.key);
    t.clock.advance(61 * 60_000);
    const pass = await runPaymentTasksOnce(t.payments);
    expect(pass.expired).toBeGreaterThanOrEqual(1);
    const pay = await post(`/checkout/${co.checkout_id}/pay?token=${token(co.checkout_id)}`);
    expect(pay.status).toBe(410);
    expect(await t.balance(w.walletId)).toBe(0);
  });

  it("runs the background task until stopped (as kinora serve does)", async () => {
    const w = await t.newWallet();
    const co = await topup(w.key);
    t.clock.advance(61 * 60_000);
    const task = startPaymentTasks(t.payments, 20);
    try {
      await expect
        .poll(async () => (await findCheckout(t.payments, co.checkout_id))?.status, {
          timeout: 10_000,
        })
        .toBe("expired");
    } finally {
      await task.stop();
    }
  });

  it("answers 503 on POST /wallet/topup/crypto while USDC is off", async () => {
    const w = await t.newWallet();
    const res = await t.call("POST", "/wallet/topup/crypto", {
      key: w.key,
      body: { amount_cents: 100 },
    });
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/USDC payments are not switched on/);
  });

  it("answers 404 pages for unknown checkouts and has no Stripe webhook in test mode", async () => {
    expect((await t.app.request("/checkout/co_doesnotexist")).status).toBe(404);
    const hook = await t.call("POST", "/webhooks/stripe", { body: {} });
    expect(hook.status).toBe(404);
  });
});

// The shared auth matrix builds no features, so the keyed payment routes are checked here.
let keys: { wallet: string; agent: string; revoked: string };

beforeAll(async () => {
  const owner = await t.newWallet();
  const agent = await t.newAgentKey(owner.key, 1000);
  const revoked = await t.newAgentKey(owner.key, 1000);
  await t.call("POST", `/wallet/keys/${revoked.id}/revoke`, { key: owner.key });
  keys = { wallet: owner.key, agent: agent.key, revoked: revoked.key };
});

const routes = [
  { path: "/wallet/topup", body: { amount_cents: 500 }, ok: 200 },
  { path: "/wallet/topup/crypto", body: { amount_cents: 100 }, ok: 503 },
];

describe("payment routes need a key", () => {
  it("refuses no key, unknown, revoked and malformed keys with 401", async () => {
    for (const route of routes) {
      const variants: Record<string, string>[] = [
        {},
        { authorization: "Bearer pmk_00000000000000000000000000000000000000000" },
        { authorization: `Bearer ${keys.revoked}` },
        { authorization: "Basic dXNlcjpwYXNz" },
      ];
      for (const headers of variants) {
        const res = await t.call("POST", route.path, { headers, body: route.body });
        expect(res.status, `${route.path} ${JSON.stringify(headers)}`).toBe(401);
        expect(typeof res.body.detail).toBe("string");
        const revoked = headers.authorization === `Bearer ${keys.revoked}`;
        expect(res.body.code).toBe(revoked ? "key_revoked" : "unauthorized");
      }
      const inUrl = await t.call("POST", `${route.path}?key=${keys.agent}`, { body: route.body });
      expect(inUrl.status).toBe(400);
      expect(inUrl.body.code).toBe("key_in_url");
    }
  });

  it("accepts the wallet key and agent keys, crediting the key's wallet", async () => {
    for (const route of routes) {
      for (const key of [keys.wallet, keys.agent]) {
        const res = await t.call("POST", route.path, { key, body: route.body });
        expect(res.status, `${route.path}: ${JSON.stringify(res.body)}`).toBe(route.ok);
      }
    }
  });

  it("keeps the operator refund behind ADMIN_TOKEN", async () => {
    const res = await t.call("POST", "/admin/wallets/wal_x/usdc-refund", {
      key: keys.wallet,
      body: {},
    });
    expect(res.status).toBe(401);
  });
});
