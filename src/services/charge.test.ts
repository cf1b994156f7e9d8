/**
 * A charge decides on the rows it updates, even when they change while it waits for them: a
 * limit raised or lowered, a top-up, a revocation committed by a transaction the charge queued
 * behind. On PostgreSQL each interleaving is forced (a second transaction holds the wallet row
 * until the charge is seen waiting for it), and the charge as it was before issue 34 is run
 * through the same interleaving as the negative control. The CHECK backstop answers as the
 * 402 it stands for on both databases; a free-running race of charges, limit changes and
 * credits never ends in anything but a charge or a refusal, with the books intact.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onPostgres, openTestDatabase, type TestDatabase } from "../../test/db.js";
import { coreDeps } from "../../test/deps.js";
import { oldCharge } from "../../test/stale-charge.js";
import { ApiError } from "../domain/errors.js";
import { changeKey, createAgentKey } from "./agent-keys.js";
import { type ChargeInput, checkViolation } from "./charge.js";
import type { CoreDeps } from "./deps.js";
import { charge, credit, type Db } from "./ledger.js";
import { reconcile } from "./reconcile.js";
import { createWallet } from "./wallets.js";

let database: TestDatabase;
let deps: CoreDeps;
beforeAll(async () => {
  database = await openTestDatabase({ poolSize: 20 });
  deps = coreDeps(database);
});
afterAll(async () => {
  await database.cleanup();
});

/** A wallet holding `balance` with an agent key of `limit` that has spent `spent`. */
async function keyWith(balance: number, limit: number, spent = 0) {
  const { wallet } = await createWallet(deps, {});
  const walletId = wallet.wallet_id;
  await credit(deps.db, {
    walletId,
    amountCents: balance + spent,
    kind: "topup",
    reference: `seed-${walletId}`,
    reason: "test funds",
  });
  const { agent_key } = await createAgentKey(deps, walletId, { limitCents: limit });
  if (spent > 0) await charge(deps.db, input(walletId, agent_key.id, spent));
  return { walletId, keyId: agent_key.id };
}

const input = (walletId: string, keyId: string | null, amountCents: number): ChargeInput => ({
  walletId,
  agentKeyId: keyId,
  amountCents,
  jobId: deps.ids("rj"),
  reason: "test",
});

async function state(walletId: string, keyId: string) {
  const r = await sql<{ balance: number; limit: number; spent: number }>`
    SELECT w.balance_cents AS balance, k.limit_cents AS "limit", k.spent_cents AS spent
    FROM wallets w JOIN agent_keys k ON k.wallet_id = w.id
    WHERE w.id = ${walletId} AND k.id = ${keyId}`.execute(deps.db);
  const row = r.rows[0] as { balance: number; limit: number; spent: number };
  return { balance: Number(row.balance), limit: Number(row.limit), spent: Number(row.spent) };
}

/** What a charge came to: its result, or the error it threw. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

/**
 * Runs `change` in a transaction that first locks the wallet row and holds it until `spend`
 * (started after the lock is held) is seen waiting for it; then commits, and returns what the
 * spend came to. The spend's statement therefore starts before the change commits.
 */
async function whileWaitingFor(
  walletId: string,
  change: (tx: Db) => Promise<unknown>,
  spend: () => Promise<unknown>,
) {
  let holder = 0;
  let locked!: () => void;
  let release!: () => void;
  const isLocked = new Promise<void>((r) => {
    locked = r;
  });
  const released = new Promise<void>((r) => {
    release = r;
  });
  const held = deps.db.transaction().execute(async (tx) => {
    const pid = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx);
    holder = Number(pid.rows[0]?.pid);
    await sql`SELECT id FROM wallets WHERE id = ${walletId} FOR UPDATE`.execute(tx);
    await change(tx);
    locked();
    await released;
  });
  await isLocked;
  const spent = outcome(spend());
  for (let i = 0; ; i++) {
    const waiting = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE ${holder}::int = ANY (pg_blocking_pids(pid))`.execute(deps.db);
    if (Number(waiting.rows[0]?.n) > 0) break;
    if (i > 500) throw new Error("the charge never waited for the held wallet");
    await new Promise((r) => setTimeout(r, 5));
  }
  release();
  await held;
  return spent;
}

const raiseLimit = (keyId: string, limit: number) => (tx: Db) =>
  sql`UPDATE agent_keys SET limit_cents = ${limit} WHERE id = ${keyId}`.execute(tx);

const topUp = (walletId: string, cents: number) => (tx: Db) =>
  sql`WITH e AS (
        INSERT INTO ledger_entries (wallet_id, kind, amount_cents, reference, reason)
        VALUES (${walletId}, 'topup', ${cents}, ${`held-${walletId}`}, 'test')
      ) UPDATE wallets SET balance_cents = balance_cents + ${cents} WHERE id = ${walletId}`.execute(
    tx,
  );

describe.runIf(onPostgres)("a charge that waited for another transaction (PostgreSQL)", () => {
  it("charges against a limit raised while it waited (the old statement answered 500)", async () => {
    const a = await keyWith(10_000, 300, 255);
    const now = await whileWaitingFor(a.walletId, raiseLimit(a.keyId, 5000), () =>
      charge(deps.db, input(a.walletId, a.keyId, 99)),
    );
    expect(now.ok, String(!now.ok && now.error)).toBe(true);
    expect(await state(a.walletId, a.keyId)).toEqual({
      balance: 10_000 - 99,
      limit: 5000,
      spent: 354,
    });

    // Negative control: the pre-issue-34 statement, same interleaving, same rows.
    const b = await keyWith(10_000, 300, 255);
    const then = await whileWaitingFor(b.walletId, raiseLimit(b.keyId, 5000), () =>
      oldCharge(deps.db, input(b.walletId, b.keyId, 99)),
    );
    expect(then.ok).toBe(false);
    expect(then.ok ? null : then.error).toMatchObject({
      code: "23514",
      constraint: "agent_keys_check",
    });
    // The backstop's mapping turns that failure into the 402 it stands for.
    const mapped = checkViolation(then.ok ? null : then.error, input(b.walletId, b.keyId, 99));
    expect(mapped).toMatchObject({ code: "over_limit", status: 402 });
    expect(await state(b.walletId, b.keyId)).toEqual({ balance: 10_000, limit: 5000, spent: 255 });
  });

  it("charges against a top-up that landed while it waited (the old statement answered 500)", async () => {
    const a = await keyWith(50, 1000);
    const now = await whileWaitingFor(a.walletId, topUp(a.walletId, 1000), () =>
      charge(deps.db, input(a.walletId, a.keyId, 99)),
    );
    expect(now.ok, String(!now.ok && now.error)).toBe(true);
    expect((await state(a.walletId, a.keyId)).balance).toBe(1050 - 99);

    const b = await keyWith(50, 1000);
    const then = await whileWaitingFor(b.walletId, topUp(b.walletId, 1000), () =>
      oldCharge(deps.db, input(b.walletId, b.keyId, 99)),
    );
    expect(then.ok ? null : then.error).toMatchObject({
      code: "23514",
      constraint: "wallets_balance_cents_check",
    });
    const mapped = checkViolation(then.ok ? null : then.error, input(b.walletId, b.keyId, 99));
    expect(mapped).toMatchObject({ code: "needs_topup", status: 402 });
  });

  it("refuses over_limit against a limit lowered while it waited, and 401 once revoked", async () => {
    const a = await keyWith(10_000, 3000, 255);
    const lowered = await whileWaitingFor(a.walletId, raiseLimit(a.keyId, 300), () =>
      charge(deps.db, input(a.walletId, a.keyId, 99)),
    );
    expect(lowered.ok ? null : lowered.error).toMatchObject({ code: "over_limit" });
    expect((lowered.ok ? null : (lowered.error as ApiError))?.detail).toMatch(/\$0\.45 left/);
    expect(await state(a.walletId, a.keyId)).toEqual({ balance: 10_000, limit: 300, spent: 255 });

    const revoke = (tx: Db) =>
      sql`UPDATE agent_keys SET revoked_at = now() WHERE id = ${a.keyId}`.execute(tx);
    const revoked = await whileWaitingFor(a.walletId, revoke, () =>
      charge(deps.db, input(a.walletId, a.keyId, 10)),
    );
    expect(revoked.ok ? null : revoked.error).toMatchObject({ code: "key_revoked" });
  });

  it("deducts from a balance a concurrent charge already lowered, never below zero", async () => {
    const a = await keyWith(150, 1000);
    const other = (tx: Db) => charge(tx, input(a.walletId, null, 100));
    const later = await whileWaitingFor(a.walletId, other, () =>
      charge(deps.db, input(a.walletId, a.keyId, 99)),
    );
    expect(later.ok ? null : later.error).toMatchObject({ code: "needs_topup" });
    expect((later.ok ? null : (later.error as ApiError))?.detail).toMatch(/\(\$0\.50\)/);
    expect((await state(a.walletId, a.keyId)).balance).toBe(50);
  });
});

describe("the CHECK backstop inside a charge", () => {
  // A trigger stands in for a charge statement that got its conditions wrong: it bends the row
  // the charge writes so that only the CHECK constraint stops it.
  it("answers 402 over_limit when agent_keys_check stops a charge, and changes nothing", async () => {
    const a = await keyWith(10_000, 1000);
    await sql`CREATE FUNCTION t_overspend() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN NEW.limit_cents := NEW.spent_cents - 1; RETURN NEW; END $$`.execute(deps.db);
    await sql`CREATE TRIGGER t_overspend BEFORE UPDATE OF spent_cents ON agent_keys
      FOR EACH ROW WHEN (NEW.spent_cents > OLD.spent_cents) EXECUTE FUNCTION t_overspend()`.execute(
      deps.db,
    );
    try {
      const err = await charge(deps.db, input(a.walletId, a.keyId, 99)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: "over_limit", status: 402 });
      expect((err as ApiError).detail).toMatch(/nothing was charged/);
    } finally {
      await sql`DROP TRIGGER t_overspend ON agent_keys`.execute(deps.db);
      await sql`DROP FUNCTION t_overspend()`.execute(deps.db);
    }
    expect(await state(a.walletId, a.keyId)).toEqual({ balance: 10_000, limit: 1000, spent: 0 });
  });

  it("answers 402 needs_topup when the balance's check stops a charge, and changes nothing", async () => {
    const a = await keyWith(10_000, 1000);
    await sql`CREATE FUNCTION t_overdraw() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN NEW.balance_cents := -1; RETURN NEW; END $$`.execute(deps.db);
    await sql`CREATE TRIGGER t_overdraw BEFORE UPDATE OF balance_cents ON wallets
      FOR EACH ROW WHEN (NEW.balance_cents < OLD.balance_cents) EXECUTE FUNCTION t_overdraw()`.execute(
      deps.db,
    );
    try {
      const err = await charge(deps.db, input(a.walletId, null, 99)).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "needs_topup", status: 402 });
    } finally {
      await sql`DROP TRIGGER t_overdraw ON wallets`.execute(deps.db);
      await sql`DROP FUNCTION t_overdraw()`.execute(deps.db);
    }
    expect((await state(a.walletId, a.keyId)).balance).toBe(10_000);
  });

  it("leaves other database errors alone", () => {
    const i = input("wal_x", null, 1);
    expect(checkViolation({ code: "23505", constraint: "x" }, i)).toBeNull();
    expect(checkViolation({ code: "23514", constraint: "clips_seconds_check" }, i)).toBeNull();
    expect(checkViolation(new Error("boom"), i)).toBeNull();
  });
});

describe(`charges racing limit changes and credits (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  it("ends every charge in a charge or a 402/401, keeping 0 ≤ spent ≤ limit and the books", async () => {
    const a = await keyWith(5000, 3000);
    const limits = [300, 5000, 400, 6000, 500, 4000, 350, 6000, 450, 5000];
    const work: Promise<{ ok: boolean; error?: unknown; what: string }>[] = [];
    for (let i = 0; i < 60; i++) {
      const what = "charge";
      work.push(
        outcome(charge(deps.db, input(a.walletId, a.keyId, 99))).then((o) => ({ ...o, what })),
      );
      if (i % 6 === 3) {
        const limit = limits[(i - 3) / 6] as number;
        const change = changeKey(deps, a.walletId, a.keyId, { limitCents: limit });
        work.push(outcome(change).then((o) => ({ ...o, what: "limit" })));
      }
      if (i % 10 === 5) {
        // Credits both ways: a top-up, and an operator debit that must not overdraw.
        const amount = i % 20 === 5 ? 500 : -300;
        const c = credit(deps.db, {
          walletId: a.walletId,
          amountCents: amount,
          kind: "adjustment",
          reference: `race-${a.walletId}-${i}`,
          reason: "test",
        });
        work.push(outcome(c).then((o) => ({ ...o, what: "credit" })));
      }
    }
    const results = await Promise.all(work);
    const unexpected = results.filter(
      (r) =>
        !r.ok &&
        !(
          r.error instanceof ApiError &&
          ["over_limit", "needs_topup", "invalid_field"].includes(r.error.code)
        ),
    );
    expect(unexpected.map((r) => `${r.what}: ${String(r.error)}`)).toEqual([]);
    const charged = results.filter((r) => r.what === "charge" && r.ok).length;
    const s = await state(a.walletId, a.keyId);
    expect(s.spent).toBe(charged * 99);
    expect(s.spent).toBeLessThanOrEqual(s.limit);
    expect(s.balance).toBeGreaterThanOrEqual(0);
    expect((await reconcile(deps.db)).drift).toEqual([]);
  });
});
