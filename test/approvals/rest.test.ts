/**
 * Approvals an agent cannot give itself, over REST (issue 39 item 1): a key that must ask its
 * owner spends only after the owner approved exactly that purchase on kinora — never on its own
 * max_price_cents, a forged or another key's approval, an approval for other arguments or
 * another price; the approved retry spends once (a repeat replays, a race charges once); a
 * declined or expired one spends nothing; the agent waits for the decision with ?wait=; only
 * the wallet key decides; webhooks tell the owner.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhooksFeature } from "../../src/features/webhooks.js";
import { restoreFeature, restoreKind } from "../../src/kinds/restore/kind.js";
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from "../app.js";

let t: TestApp;
/** What BODY costs, as the public quote says. */
let PRICE: number;
beforeAll(async () => {
  t = await createTestApp({
    env: { WEBHOOK_ALLOW_HTTP_LOOPBACK: "true" },
    features: [
      restoreFeature({ noExecutor: true }),
      webhooksFeature({ kinds: [restoreKind], lookup: async () => [] }),
    ],
  });
  const quote = { duration_sec: BODY.duration_sec, quality: BODY.quality };
  PRICE = (await t.call("POST", "/cloud/quote", { body: quote })).body.amount_cents;
});
afterAll(async () => {
  await t.close();
});

/** A 2 s Faithful restore, charged at create. */
const BODY = {
  duration_sec: 2,
  quality: "faithful",
  filename: "home-movie.mp4",
  content_type: "video/mp4",
  size: 1000,
};

async function owner(opts: { ask?: boolean } = {}) {
  const w = await t.newWallet(5000);
  const agent = await t.newAgentKey(w.key, 3000, { askBeforeSpending: opts.ask ?? true });
  return { wallet: w, agent };
}

const balanceOf = async (walletId: string) => {
  const row = await t.deps.db
    .selectFrom("wallets")
    .select("balance_cents")
    .where("id", "=", walletId)
    .executeTakeFirstOrThrow();
  return Number(row.balance_cents);
};

const charges = async (walletId: string) => {
  const rows = await t.deps.db
    .selectFrom("ledger_entries")
    .select(["amount_cents"])
    .where("wallet_id", "=", walletId)
    .where("kind", "=", "charge")
    .execute();
  return rows.length;
};

const create = (key: string, body: Record<string, unknown> = BODY, headers = {}) =>
  t.call("POST", "/cloud/jobs", { key, body, headers });

const decide = (key: string, id: string, decision: "approve" | "decline") =>
  t.call("POST", `/approvals/${id}/decision`, { key, body: { decision } });

describe("a key that must ask", () => {
  it("is refused with an approval link, its max_price_cents no consent; only the owner's yes spends, once", async () => {
    const { wallet, agent } = await owner();
    const first = await create(agent.key, { ...BODY, max_price_cents: PRICE });
    expect(first.status).toBe(402);
    expect(first.body).toMatchObject({ code: "agreement_required", price_cents: PRICE });
    const id = first.body.approval_id as string;
    expect(id).toMatch(/^apr_/);
    expect(first.body.approval_url).toBe(`${TEST_PUBLIC_URL}/approve/${id}`);
    expect(first.body.detail).toContain(first.body.approval_url);
    expect(first.body.detail).toContain(`GET /approvals/${id}?wait=60`);

    // Asking again (any key order, another cap, its own Idempotency-Key) is the same question.
    const again = await create(
      agent.key,
      { max_price_cents: 500, ...Object.fromEntries(Object.entries(BODY).reverse()) },
      { "idempotency-key": "mine-1" },
    );
    expect(again.status).toBe(402);
    expect(again.body.approval_id).toBe(id);
    const read = await t.call("GET", `/approvals/${id}`, { key: agent.key });
    expect(read.status).toBe(200);
    expect(read.body.approval).toMatchObject({
      id,
      status: "pending",
      used: false,
      price_cents: PRICE,
      operation: "createRestore",
      question: expect.stringMatching(
        /^Restore home-movie\.mp4, 0:02, Standard — \$\d+\.\d\d from your balance\?$/,
      ),
      agent_key: { id: agent.id, kind: "agent" },
    });

    // The agent cannot answer for its owner: no route decides with its key.
    expect((await decide(agent.key, id, "approve")).status).toBe(403);
    expect((await t.call("GET", "/wallet/approvals", { key: agent.key })).status).toBe(403);
    // Another wallet's owner cannot either, nor see it.
    const stranger = await t.newWallet(100);
    expect((await decide(stranger.key, id, "approve")).status).toBe(404);
    expect((await t.call("GET", `/approvals/${id}`, { key: stranger.key })).status).toBe(404);
    expect(await balanceOf(wallet.walletId)).toBe(5000);

    const yes = await decide(wallet.key, id, "approve");
    expect(yes.status).toBe(200);
    expect(yes.body.approval).toMatchObject({ id, status: "approved" });
    expect((await decide(wallet.key, id, "decline")).status).toBe(409);

    // The retry with the same input spends once; later retries replay that answer.
    const made = await create(agent.key, { ...BODY }, { "idempotency-key": "mine-1" });
    expect(made.status).toBe(200);
    expect(await balanceOf(wallet.walletId)).toBe(5000 - PRICE);
    const replay = await create(agent.key, { ...BODY, max_price_cents: PRICE });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.job.id).toBe(made.body.job.id);
    expect(await charges(wallet.walletId)).toBe(1);
    expect(await balanceOf(wallet.walletId)).toBe(5000 - PRICE);
    const used = await t.call("GET", `/approvals/${id}`, { key: agent.key });
    expect(used.body.approval).toMatchObject({ status: "approved", used: true });
  });

  it("spends nothing on an approval for other arguments, another key's, another price, or a forged id", async () => {
    const { wallet, agent } = await owner();
    const other = await t.newAgentKey(wallet.key, 3000, { askBeforeSpending: true });
    const first = await create(agent.key);
    const id = first.body.approval_id as string;
    expect((await decide(wallet.key, id, "approve")).status).toBe(200);

    // Other arguments: another purchase, a new question.
    const longer = await create(agent.key, { ...BODY, filename: "other.mp4" });
    expect(longer.status).toBe(402);
    expect(longer.body.approval_id).not.toBe(id);
    // Another key of the same wallet, same arguments: its own question; it cannot read the first.
    const theirs = await create(other.key);
    expect(theirs.status).toBe(402);
    expect(theirs.body.approval_id).not.toBe(id);
    expect((await t.call("GET", `/approvals/${id}`, { key: other.key })).status).toBe(404);
    // An approval id the call names is not part of any input; a forged one reads as nothing.
    const named = await create(other.key, { ...BODY, approval_id: id });
    expect(named.status).toBe(400);
    const forged = await t.call("GET", "/approvals/apr_0000000000000000000000", { key: agent.key });
    expect(forged.status).toBe(404);
    expect((await decide(wallet.key, "apr_0000000000000000000000", "approve")).status).toBe(404);

    // The price the owner saw is no longer the price (as after a price change): refused.
    await t.deps.db
      .updateTable("purchase_approvals")
      .set({ price_cents: PRICE - 1 })
      .where("id", "=", id)
      .execute();
    const repriced = await create(agent.key);
    expect(repriced.status).toBe(402);
    expect(repriced.body.approval_id).not.toBe(id);
    expect(await balanceOf(wallet.walletId)).toBe(5000);
    expect(await charges(wallet.walletId)).toBe(0);
  });

  it("racing the same approved retry charges once", async () => {
    const { wallet, agent } = await owner();
    const body = { ...BODY, filename: "race.mp4" };
    const id = (await create(agent.key, body)).body.approval_id as string;
    await decide(wallet.key, id, "approve");
    const answers = await Promise.all(Array.from({ length: 4 }, () => create(agent.key, body)));
    const codes = answers.map((a) => a.status).sort();
    expect(codes.filter((c) => c === 200).length).toBeGreaterThanOrEqual(1);
    for (const a of answers) {
      if (a.status !== 200) expect(a.body.code).toBe("idempotency_in_flight");
    }
    const jobs = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.job.id));
    expect(jobs.size).toBe(1);
    expect(await charges(wallet.walletId)).toBe(1);
    expect(await balanceOf(wallet.walletId)).toBe(5000 - PRICE);
  });

  it("declined: the agent's wait ends with the no, and it spends nothing", async () => {
    const { wallet, agent } = await owner();
    const id = (await create(agent.key)).body.approval_id as string;
    const started = Date.now();
    const waiting = t.call("GET", `/approvals/${id}?wait=10`, { key: agent.key });
    await new Promise((r) => setTimeout(r, 300));
    expect((await decide(wallet.key, id, "decline")).status).toBe(200);
    const waited = await waiting;
    expect(waited.status).toBe(200);
    expect(waited.body.approval.status).toBe("declined");
    expect(Date.now() - started).toBeLessThan(5000);
    const retry = await create(agent.key);
    expect(retry.status).toBe(402);
    expect(retry.body).toMatchObject({ code: "agreement_required", approval_id: id });
    expect(retry.body.detail).toMatch(/The owner declined/);
    expect(await charges(wallet.walletId)).toBe(0);
  });

  it("expires unanswered (and unused once approved): then it asks again", async () => {
    const { wallet, agent } = await owner();
    const body = { ...BODY, filename: "late.mp4" };
    const id = (await create(agent.key, body)).body.approval_id as string;
    t.clock.advance(31 * 60_000);
    const read = await t.call("GET", `/approvals/${id}`, { key: agent.key });
    expect(read.body.approval.status).toBe("expired");
    expect((await decide(wallet.key, id, "approve")).status).toBe(409);
    const asked = await create(agent.key, body);
    expect(asked.status).toBe(402);
    const next = asked.body.approval_id as string;
    expect(next).not.toBe(id);
    expect((await decide(wallet.key, next, "approve")).status).toBe(200);
    t.clock.advance(31 * 60_000);
    const late = await create(agent.key, body);
    expect(late.status).toBe(402);
    expect(await charges(wallet.walletId)).toBe(0);
  });

  it("lists for the owner and writes the webhook events", async () => {
    const { wallet, agent } = await owner();
    const hook = await t.call("POST", "/wallet/webhooks", {
      key: wallet.key,
      body: {
        url: "http://127.0.0.1:9999/hook",
        events: ["purchase.approval_requested", "purchase.approved", "purchase.declined"],
      },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    const a = (await create(agent.key, { ...BODY, filename: "a.mp4" })).body.approval_id;
    t.clock.advance(1000);
    const b = (await create(agent.key, { ...BODY, filename: "b.mp4" })).body.approval_id;
    await decide(wallet.key, a, "approve");
    await decide(wallet.key, b, "decline");
    const list = await t.call("GET", "/wallet/approvals", { key: wallet.key });
    expect(list.status).toBe(200);
    expect(
      list.body.approvals.map((x: { id: string; status: string }) => [x.id, x.status]),
    ).toEqual([
      [b, "declined"],
      [a, "approved"],
    ]);
    const events = await sql<{ type: string; data: Record<string, unknown> }>`
      SELECT type, data FROM webhook_events WHERE wallet_id = ${wallet.walletId} ORDER BY created_at, type`.execute(
      t.deps.db,
    );
    const seen = events.rows.map((e) => `${e.type} ${e.data.approval_id}`).sort();
    expect(seen).toEqual(
      [
        `purchase.approval_requested ${a}`,
        `purchase.approval_requested ${b}`,
        `purchase.approved ${a}`,
        `purchase.declined ${b}`,
      ].sort(),
    );
    const approved = events.rows.find((e) => e.type === "purchase.approved");
    expect(approved?.data).toMatchObject({
      agent_key_id: agent.id,
      price_cents: PRICE,
      approval_url: `${TEST_PUBLIC_URL}/approve/${a}`,
    });
  });

  it("a key that need not ask spends at once, as before", async () => {
    const { wallet, agent } = await owner({ ask: false });
    expect((await create(agent.key)).status).toBe(200);
    expect(await balanceOf(wallet.walletId)).toBe(5000 - PRICE);
  });
});
