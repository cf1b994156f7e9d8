/**
 * The owner's threshold (issue 39 item 1: "ask only above N cents"), over REST and MCP: a key
 * that must ask buys at or below `ask_above_cents` with no approval and is asked above it,
 * nothing charged; only the wallet key sets it (an agent key can neither set nor raise its own,
 * on REST or MCP); bad values are refused with a detail and change nothing; clearing it asks
 * for every purchase again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, connect, refusal } from "../mcp/helpers.js";
import { apiOnlyFeatures, type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
/** What RESTORE costs, as the public quote says. */
let PRICE: number;
beforeAll(async () => {
  s = await serveTestApp({ features: apiOnlyFeatures() });
  const quote = { duration_sec: RESTORE.duration_sec, quality: RESTORE.quality };
  PRICE = (await s.t.call("POST", "/cloud/quote", { body: quote })).body.amount_cents;
  expect(PRICE).toBeGreaterThan(1);
});
afterAll(async () => {
  await s?.close();
});

const RESTORE = {
  duration_sec: 2,
  quality: "faithful",
  filename: "tape.mp4",
  content_type: "video/mp4",
  size: 1000,
};

const balanceOf = async (walletKey: string) =>
  (await s.t.call("GET", "/wallet", { key: walletKey })).body.wallet.balance_cents as number;

const approvalsOf = async (keyId: string) =>
  s.t.deps.db
    .selectFrom("purchase_approvals")
    .select(["status"])
    .where("agent_key_id", "=", keyId)
    .execute();

/** A key that must ask, with the owner's threshold set at creation. */
async function keyWith(askAboveCents: number | null) {
  const owner = await s.t.newWallet(5000);
  const made = await s.t.call("POST", "/wallet/keys", {
    key: owner.key,
    body: { limit_cents: 3000, ask_before_spending: true, ask_above_cents: askAboveCents },
  });
  expect(made.status).toBe(200);
  expect(made.body.agent_key).toMatchObject({
    ask_before_spending: true,
    ask_above_cents: askAboveCents,
  });
  return { owner, agent: { key: made.body.key as string, id: made.body.agent_key.id as string } };
}

const patchKey = (key: string, id: string, body: Record<string, unknown>) =>
  s.t.call("PATCH", `/wallet/keys/${id}`, { key, body });

describe("REST: ask only above N cents", () => {
  it("a purchase at the threshold is charged with no approval", async () => {
    const { owner, agent } = await keyWith(PRICE);
    const made = await s.t.call("POST", "/cloud/jobs", { key: agent.key, body: RESTORE });
    expect(made.status).toBe(200);
    expect(await balanceOf(owner.key)).toBe(5000 - PRICE);
    expect(await approvalsOf(agent.id)).toEqual([]);
  });

  it("a purchase above it waits for the owner: a pending approval, nothing charged", async () => {
    const { owner, agent } = await keyWith(PRICE - 1);
    const asked = await s.t.call("POST", "/cloud/jobs", {
      key: agent.key,
      body: { ...RESTORE, max_price_cents: PRICE },
    });
    expect(asked.status).toBe(402);
    expect(asked.body).toMatchObject({ code: "agreement_required", price_cents: PRICE });
    expect(asked.body.approval_url).toContain(`/approve/${asked.body.approval_id}`);
    expect(await balanceOf(owner.key)).toBe(5000);
    expect(await approvalsOf(agent.id)).toEqual([{ status: "pending" }]);
  });

  it("only the wallet key sets it; the agent key can neither set nor raise its own", async () => {
    const { owner, agent } = await keyWith(0);
    const own = await patchKey(agent.key, agent.id, { ask_above_cents: 3000 });
    expect(own.status).toBe(403);
    const another = await s.t.call("POST", "/wallet/keys", {
      key: agent.key,
      body: { limit_cents: 3000, ask_before_spending: true, ask_above_cents: 3000 },
    });
    expect(another.status).toBe(403);
    const keys = await s.t.call("GET", "/wallet/keys", { key: owner.key });
    expect(keys.body.keys).toHaveLength(1);
    expect(keys.body.keys[0].ask_above_cents).toBe(0);
    // Still asked: its try changed nothing.
    const asked = await s.t.call("POST", "/cloud/jobs", { key: agent.key, body: RESTORE });
    expect(asked.body.code).toBe("agreement_required");

    // The owner raises it: the same key now buys without asking; cleared, it asks again.
    const raised = await patchKey(owner.key, agent.id, { ask_above_cents: PRICE });
    expect(raised.status).toBe(200);
    expect(raised.body.agent_key).toMatchObject({ ask_above_cents: PRICE, limit_cents: 3000 });
    const bought = await s.t.call("POST", "/cloud/jobs", {
      key: agent.key,
      body: { ...RESTORE, filename: "other.mp4" },
    });
    expect(bought.status).toBe(200);
    expect(await balanceOf(owner.key)).toBe(5000 - PRICE);
    const cleared = await patchKey(owner.key, agent.id, { ask_above_cents: null });
    expect(cleared.body.agent_key.ask_above_cents).toBeNull();
    const again = await s.t.call("POST", "/cloud/jobs", {
      key: agent.key,
      body: { ...RESTORE, filename: "third.mp4" },
    });
    expect(again.body.code).toBe("agreement_required");
    expect(await balanceOf(owner.key)).toBe(5000 - PRICE);
  });

  it("refuses bad thresholds with a detail and changes nothing", async () => {
    const { owner, agent } = await keyWith(100);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ask_above_cents: -1 }, /^ask_above_cents: /],
      [{ ask_above_cents: 1.5 }, /^ask_above_cents: /],
      [{ ask_above_cents: "100" }, /^ask_above_cents: /],
      [{ ask_above_cents: 3001 }, /^ask_above_cents: must be at most the key's limit/],
      // A lower limit together with a threshold above it: neither is written.
      [{ limit_cents: 500, ask_above_cents: 600 }, /^ask_above_cents: must be at most/],
      [{}, /give limit_cents, ask_above_cents or both/],
    ];
    for (const [body, detail] of cases) {
      const res = await patchKey(owner.key, agent.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.detail).toMatch(detail);
    }
    const made = await s.t.call("POST", "/wallet/keys", {
      key: owner.key,
      body: { limit_cents: 200, ask_above_cents: 201 },
    });
    expect(made.status).toBe(400);
    expect(made.body.detail).toMatch(
      /^ask_above_cents: must be at most the key's limit \(\$2\.00\)/,
    );
    const keys = await s.t.call("GET", "/wallet/keys", { key: owner.key });
    expect(keys.body.keys).toHaveLength(1);
    expect(keys.body.keys[0]).toMatchObject({ limit_cents: 3000, ask_above_cents: 100 });
  });
});

describe("MCP: ask only above N cents", () => {
  it("below the threshold the tool spends with no approval; above it, it is asked; the agent cannot set it", async () => {
    const below = await keyWith(PRICE);
    const client = await connect(s.url, below.agent.key);
    // The assistant is told where the owner's threshold is.
    const dollars = `$${(PRICE / 100).toFixed(2)}`;
    expect(client.getInstructions()).toContain(
      `Purchases of ${dollars} or less spend without asking`,
    );
    const made = await call(client, "create_restore", RESTORE);
    expect(made.isError).toBeFalsy();
    expect(await balanceOf(below.owner.key)).toBe(5000 - PRICE);
    expect(await approvalsOf(below.agent.id)).toEqual([]);
    // No tool manages keys, and a spending tool takes no threshold from the agent.
    const { tools } = await client.listTools();
    expect(JSON.stringify(tools)).not.toMatch(/"ask_above_cents":\{/);
    expect(tools.map((t: { name: string }) => t.name).filter((n: string) => /key/.test(n))).toEqual(
      [],
    );
    await client.close();

    const above = await keyWith(PRICE - 1);
    const asking = await connect(s.url, above.agent.key);
    const asked = refusal(
      await call(asking, "create_restore", { ...RESTORE, max_price_cents: PRICE }),
    );
    expect(asked).toMatchObject({ code: "agreement_required", price_cents: PRICE });
    // Sending a threshold of its own is refused as an unknown argument; nothing spent.
    const raised = await call(asking, "create_restore", {
      ...RESTORE,
      filename: "raised.mp4",
      ask_above_cents: 5000,
    });
    expect(raised.isError).toBe(true);
    expect(await balanceOf(above.owner.key)).toBe(5000);
    expect(await approvalsOf(above.agent.id)).toEqual([{ status: "pending" }]);
    const keys = await s.t.call("GET", "/wallet/keys", { key: above.owner.key });
    expect(keys.body.keys[0].ask_above_cents).toBe(PRICE - 1);
    await asking.close();
  });
});
