import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createTestApp, type TestApp } from "../app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function rowCounts() {
  const count = async (table: "wallets" | "agent_keys" | "ledger_entries") =>
    Number(
      (
        await t.deps.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    wallets: await count("wallets"),
    keys: await count("agent_keys"),
    entries: await count("ledger_entries"),
  };
}

describe("POST /wallet", () => {
  it("returns the wallet key once and an empty wallet with the email", async () => {
    const res = await t.call("POST", "/wallet", { body: { email: "owner@example.com" } });
    expect(res.status).toBe(200);
    expect(res.body.key).toMatch(/^pmk_[0-9A-Za-z]{40,}$/);
    expect(res.body.wallet).toMatchObject({
      balance_cents: 0,
      spendable_cents: 0,
      paused: false,
      email: "owner@example.com",
    });
    const stored = await t.deps.db
      .selectFrom("wallets")
      .selectAll()
      .where("id", "=", res.body.wallet.wallet_id)
      .executeTakeFirstOrThrow();
    expect(stored.key_hash).not.toContain(res.body.key);
    expect(stored.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("works without a body", async () => {
    const res = await t.call("POST", "/wallet");
    expect(res.status).toBe(200);
    expect(res.body.wallet.email).toBeNull();
  });
});

describe("GET /wallet", () => {
  it("shows the email to the wallet key and the agent key's allowance to an agent key", async () => {
    const { key } = await t.newWallet(1000);
    const agent = await t.newAgentKey(key, 300);
    const asOwner = await t.call("GET", "/wallet", { key });
    expect(asOwner.body.wallet).toMatchObject({ balance_cents: 1000, spendable_cents: 1000 });
    expect(asOwner.body.wallet).toHaveProperty("email");
    expect(asOwner.body.wallet.agent_key).toBeUndefined();
    const asAgent = await t.call("GET", "/wallet", { key: agent.key });
    expect(asAgent.body.wallet).toMatchObject({ balance_cents: 1000, spendable_cents: 300 });
    expect(asAgent.body.wallet).not.toHaveProperty("email");
    expect(asAgent.body.wallet.agent_key).toMatchObject({
      id: agent.id,
      limit_cents: 300,
      remaining_cents: 300,
      revoked: false,
    });
  });

  it("shows spendable 0 while the operator has the wallet paused", async () => {
    const { key, walletId } = await t.newWallet(1000);
    const pause = await t.call("POST", `/admin/wallets/${walletId}/pause`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: { reason: "chargeback review" },
    });
    expect(pause.status).toBe(200);
    const res = await t.call("GET", "/wallet", { key });
    expect(res.body.wallet).toMatchObject({
      paused: true,
      balance_cents: 1000,
      spendable_cents: 0,
    });
  });
});

describe("agent keys", () => {
  it("creates, lists without secrets and revokes at once", async () => {
    const { key } = await t.newWallet(0);
    const created = await t.call("POST", "/wallet/keys", {
      key,
      body: { label: "assistant", limit_cents: 500 },
    });
    expect(created.status).toBe(200);
    expect(created.body.key).toMatch(/^pak_/);
    const list = await t.call("GET", "/wallet/keys", { key });
    expect(list.body.keys).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    expect(JSON.stringify(list.body)).not.toMatch(/pak_/);
    expect((await t.call("GET", "/wallet", { key: created.body.key })).status).toBe(200);
    const revoked = await t.call("POST", `/wallet/keys/${created.body.agent_key.id}/revoke`, {
      key,
    });
    expect(revoked.body.agent_key.revoked).toBe(true);
    expect((await t.call("GET", "/wallet", { key: created.body.key })).status).toBe(401);
    const again = await t.call("POST", `/wallet/keys/${created.body.agent_key.id}/revoke`, { key });
    expect(again.status).toBe(200);
  });

  it("hides another wallet's key behind a 404", async () => {
    const a = await t.newWallet(0);
    const b = await t.newWallet(0);
    const bKey = await t.newAgentKey(b.key, 100);
    const res = await t.call("POST", `/wallet/keys/${bKey.id}/revoke`, { key: a.key });
    expect(res.status).toBe(404);
    expect((await t.call("GET", "/wallet", { key: bKey.key })).status).toBe(200);
  });
});

describe("bad input changes nothing", () => {
  const cases: [string, string, unknown, RegExp][] = [
    [
      "limit 0",
      "/wallet/keys",
      { limit_cents: 0 },
      /limit_cents: must be an integer from 1 to 100000/,
    ],
    [
      "limit too big",
      "/wallet/keys",
      { limit_cents: 100001 },
      /limit_cents: must be an integer from 1 to 100000/,
    ],
    ["limit fractional", "/wallet/keys", { limit_cents: 1.5 }, /limit_cents/],
    ["limit as string", "/wallet/keys", { limit_cents: "500" }, /limit_cents/],
    ["limit missing", "/wallet/keys", {}, /limit_cents/],
    ["unknown field", "/wallet/keys", { limit_cents: 5, color: "red" }, /Unknown field.*color/],
    ["label too long", "/wallet/keys", { limit_cents: 5, label: "x".repeat(101) }, /label/],
    ["malformed JSON", "/wallet/keys", '{"limit_cents": ', /not valid JSON/],
    ["bad email", "/wallet", { email: "not-an-email" }, /email: must be an e-mail address/],
  ];
  for (const [name, path, body, detail] of cases) {
    it(`${name} → 400 naming the field`, async () => {
      const { key } = await t.newWallet(0);
      const before = await rowCounts();
      const res = await t.call("POST", path, { key, body });
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(detail);
      expect(await rowCounts()).toEqual(before);
    });
  }

  it("a non-JSON content type → 400 that says to send JSON", async () => {
    const { key } = await t.newWallet(0);
    const res = await t.call("POST", "/wallet/keys", {
      key,
      body: "limit_cents=5",
      headers: { "content-type": "application/x-www-form-urlencoded", "content-length": "13" },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/Content-Type: application\/json/);
  });

  it("an oversized body → 413 with a detail", async () => {
    const { key } = await t.newWallet(0);
    const big = JSON.stringify({ limit_cents: 5, label: "x".repeat(70_000) });
    const res = await t.call("POST", "/wallet/keys", {
      key,
      body: big,
      headers: { "content-length": String(big.length) },
    });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/too large/);
  });

  it("unknown routes and wrong methods answer with the error body", async () => {
    const missing = await t.call("GET", "/no/such/thing");
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatch(/No endpoint GET \/no\/such\/thing/);
    const wrong = await t.call("DELETE", "/wallet/keys");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toContain("POST");
    expect(wrong.body.detail).toMatch(/not allowed/);
  });
});

describe("Idempotency-Key", () => {
  it("replays the first response for the same body and refuses another body with 409", async () => {
    const { key } = await t.newWallet(0);
    const headers = { "idempotency-key": "create-key-1" };
    const first = await t.call("POST", "/wallet/keys", { key, headers, body: { limit_cents: 5 } });
    const second = await t.call("POST", "/wallet/keys", { key, headers, body: { limit_cents: 5 } });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const list = await t.call("GET", "/wallet/keys", { key });
    expect(list.body.keys).toHaveLength(1);
    const other = await t.call("POST", "/wallet/keys", { key, headers, body: { limit_cents: 6 } });
    expect(other.status).toBe(409);
    expect(other.body.detail).toMatch(/different request/);
    expect(other.body.code).toBe("idempotency_key_reused");
  });
});

describe("operator API", () => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  it("credits and debits with a reason, never below zero, and reconciles clean", async () => {
    const { key, walletId } = await t.newWallet(0);
    const up = await t.call("POST", `/admin/wallets/${walletId}/credit`, {
      headers: admin,
      body: { amount_cents: 700, reason: "goodwill" },
    });
    expect(up.body).toMatchObject({ applied: true, balance_cents: 700 });
    const down = await t.call("POST", `/admin/wallets/${walletId}/credit`, {
      headers: admin,
      body: { amount_cents: -800, reason: "oops" },
    });
    expect(down.status).toBe(409);
    expect((await t.call("GET", "/wallet", { key })).body.wallet.balance_cents).toBe(700);
    const report = await t.call("GET", "/admin/reconcile", { headers: admin });
    expect(report.body).toMatchObject({ ok: true, drift: [] });
  });

  it("treats a reused reference as idempotent only for the same wallet and amount (else 409)", async () => {
    const { walletId } = await t.newWallet(0);
    const other = await t.newWallet(0);
    const send = (wallet: string, amount: number) =>
      t.call("POST", `/admin/wallets/${wallet}/credit`, {
        headers: admin,
        body: { amount_cents: amount, reason: "promo", reference: "promo-7" },
      });
    expect((await send(walletId, 300)).body).toMatchObject({ applied: true, balance_cents: 300 });
    expect((await send(walletId, 300)).body).toMatchObject({ applied: false, balance_cents: 300 });
    const changed = await send(walletId, 500);
    expect(changed.status).toBe(409);
    expect(changed.body.detail).toMatch(/^reference: promo-7 was already used for 300 cents/);
    expect((await send(other.walletId, 300)).status).toBe(409);
    const report = await t.call("GET", "/admin/reconcile", { headers: admin });
    expect(report.body.ok).toBe(true);
  });

  it("refuses a wrong admin token and wallet keys", async () => {
    const { key, walletId } = await t.newWallet(0);
    expect((await t.call("GET", "/admin/reconcile", { key })).status).toBe(401);
    expect(
      (
        await t.call("POST", `/admin/wallets/${walletId}/pause`, {
          headers: { authorization: "Bearer wrong" },
        })
      ).status,
    ).toBe(401);
  });

  it("404s an unknown wallet", async () => {
    const res = await t.call("POST", "/admin/wallets/wal_missing/credit", {
      headers: admin,
      body: { amount_cents: 5, reason: "x" },
    });
    expect(res.status).toBe(404);
  });
});

describe("OpenAPI", () => {
  it("serves a 3.1.0 document, version 1.0.0, with errors on every operation", async () => {
    const res = await t.call("GET", "/openapi.json");
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.info.version).toBe("1.0.0");
    for (const [path, item] of Object.entries(
      res.body.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>,
    )) {
      for (const [method, op] of Object.entries(item)) {
        const codes = Object.keys(op.responses);
        expect(codes, `${method} ${path}`).toContain("200");
        if (path !== "/healthz")
          expect(
            codes.some((c) => c.startsWith("4")),
            `${method} ${path}`,
          ).toBe(true);
      }
    }
    expect((await t.app.request("/docs")).status).toBe(200);
  });
});
