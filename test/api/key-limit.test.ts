/**
 * PATCH /wallet/keys/{id}: the owner raises or lowers what an agent key may spend — never below
 * what it already spent, never on a revoked key, only with the wallet key — and the change is a
 * ledger entry that moves no money. Raced against the key's own spending, the key never ends
 * up having spent more than its limit.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { createTestApp, type TestApp } from "../app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ features: [restoreFeature({ noExecutor: true })] });
});
afterAll(async () => {
  await t.close();
});

/** A $2.99 restore charged to the key. */
const spend = (key: string) =>
  t.call("POST", "/cloud/jobs", {
    key,
    body: {
      duration_sec: 5,
      quality: "faithful",
      filename: "a.mp4",
      content_type: "video/mp4",
      size: 1000,
    },
  });

const limit = (walletKey: string, keyId: string, body: unknown) =>
  t.call("PATCH", `/wallet/keys/${keyId}`, { key: walletKey, body });

const keyOf = async (walletKey: string, keyId: string) =>
  ((await t.call("GET", "/wallet/keys", { key: walletKey })).body.keys as { id: string }[]).find(
    (k) => k.id === keyId,
  ) as unknown as { limit_cents: number; spent_cents: number };

const limitEntries = (walletId: string) =>
  t.deps.db
    .selectFrom("ledger_entries")
    .selectAll()
    .where("wallet_id", "=", walletId)
    .where("kind", "=", "key_limit")
    .orderBy("id")
    .execute();

describe("PATCH /wallet/keys/{id}", () => {
  it("raises a key's limit, so it spends what it could not, and writes the change to the ledger", async () => {
    const owner = await t.newWallet(10_000);
    const agent = await t.newAgentKey(owner.key, 300, { askBeforeSpending: false });
    expect((await spend(agent.key)).status).toBe(200);
    expect((await spend(agent.key)).body.code).toBe("over_limit");

    const raised = await limit(owner.key, agent.id, { limit_cents: 1000 });
    expect(raised.status).toBe(200);
    expect(raised.body.agent_key).toMatchObject({ id: agent.id, limit_cents: 1000 });
    // The next request sees it (the key cache is emptied by the write).
    expect((await spend(agent.key)).status).toBe(200);
    expect(await keyOf(owner.key, agent.id)).toMatchObject({ limit_cents: 1000, spent_cents: 598 });

    const [entry, ...more] = await limitEntries(owner.walletId);
    expect(more).toHaveLength(0);
    expect(entry).toMatchObject({
      agent_key_id: agent.id,
      amount_cents: 0,
      key_amount_cents: 0,
      reason: expect.stringMatching(/changed from \$3\.00 to \$10\.00/),
    });
    const wallet = (await t.call("GET", "/wallet", { key: owner.key })).body.wallet;
    expect(wallet.balance_cents).toBe(10_000 - 598);
  });

  it("lowers it down to what was spent, not below; the same limit again writes nothing", async () => {
    const owner = await t.newWallet(10_000);
    const agent = await t.newAgentKey(owner.key, 1000, { askBeforeSpending: false });
    expect((await spend(agent.key)).status).toBe(200);
    const below = await limit(owner.key, agent.id, { limit_cents: 298 });
    expect(below.status).toBe(400);
    expect(below.body).toMatchObject({ code: "invalid_field" });
    expect(below.body.detail).toBe(
      "limit_cents: must be at least 299, what this key already spent ($2.99).",
    );
    expect((await keyOf(owner.key, agent.id)).limit_cents).toBe(1000);
    expect((await limit(owner.key, agent.id, { limit_cents: 299 })).status).toBe(200);
    expect((await spend(agent.key)).body.code).toBe("over_limit");
    expect((await limit(owner.key, agent.id, { limit_cents: 299 })).status).toBe(200);
    expect(await limitEntries(owner.walletId)).toHaveLength(1);
  });

  it("refuses bad input, agent keys, other wallets' keys and revoked keys, changing nothing", async () => {
    const owner = await t.newWallet(10_000);
    const agent = await t.newAgentKey(owner.key, 500, { askBeforeSpending: false });
    for (const body of [{}, { limit_cents: 0 }, { limit_cents: 2.5 }, { limit_cents: "9" }]) {
      const res = await limit(owner.key, agent.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.detail).toMatch(/^limit_cents: /);
    }
    const extra = await limit(owner.key, agent.id, { limit_cents: 900, spent_cents: 0 });
    expect(extra.status).toBe(400);
    const byAgent = await limit(agent.key, agent.id, { limit_cents: 100_000 });
    expect(byAgent.status).toBe(403);
    expect(byAgent.body.code).toBe("wallet_key_required");
    const stranger = await t.newWallet(0);
    expect((await limit(stranger.key, agent.id, { limit_cents: 900 })).status).toBe(404);
    expect((await limit(owner.key, "key_doesnotexist", { limit_cents: 900 })).status).toBe(404);
    await t.call("POST", `/wallet/keys/${agent.id}/revoke`, { key: owner.key });
    const revoked = await limit(owner.key, agent.id, { limit_cents: 900 });
    expect(revoked.status).toBe(409);
    expect(revoked.body.code).toBe("wrong_state");
    expect((await keyOf(owner.key, agent.id)).limit_cents).toBe(500);
    expect(await limitEntries(owner.walletId)).toHaveLength(0);
  });

  // Rounds: a lock-order mistake (a deadlock answered 500) shows only in some interleavings.
  it.each([1, 2, 3])(
    "never lets a key end above its limit when spending races a lowering (round %i)",
    async () => {
      const owner = await t.newWallet(100_000);
      const agent = await t.newAgentKey(owner.key, 5000, { askBeforeSpending: false });
      const results = await Promise.all([
        ...Array.from({ length: 8 }, () => spend(agent.key)),
        limit(owner.key, agent.id, { limit_cents: 900 }),
        ...Array.from({ length: 8 }, () => spend(agent.key)),
      ]);
      const lowered = results[8];
      expect([200, 400]).toContain(lowered?.status);
      const key = await keyOf(owner.key, agent.id);
      expect(key.spent_cents).toBeLessThanOrEqual(key.limit_cents);
      if (lowered?.status === 200) expect(key.limit_cents).toBe(900);
      else expect(lowered?.body.code).toBe("invalid_field");
      const charged = results.filter((r, i) => i !== 8 && r.status === 200).length;
      expect(key.spent_cents).toBe(charged * 299);
      const wallet = (await t.call("GET", "/wallet", { key: owner.key })).body.wallet;
      expect(wallet.balance_cents).toBe(100_000 - charged * 299);
    },
  );
});
