import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onPostgres, openTestDatabase, type TestDatabase } from "../../test/db.js";
import { coreDeps } from "../../test/deps.js";
import { ApiError } from "../domain/errors.js";
import { createAgentKey } from "./agent-keys.js";
import type { CoreDeps } from "./deps.js";
import { charge, credit, refundJob } from "./ledger.js";
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

async function fundedWallet(cents: number) {
  const { wallet } = await createWallet(deps, {});
  if (cents > 0) {
    await credit(deps.db, {
      walletId: wallet.wallet_id,
      amountCents: cents,
      kind: "topup",
      reference: `seed-${wallet.wallet_id}`,
      reason: "test funds",
    });
  }
  return wallet.wallet_id;
}

const jobId = () => deps.ids("rj");

async function settle<T>(promises: Promise<T>[]) {
  const results = await Promise.allSettled(promises);
  const ok = results.filter((r) => r.status === "fulfilled").length;
  const refusals = results
    .filter((r): r is PromiseRejectedResult => r.status === "rejected")
    .map((r) => r.reason);
  return { ok, refusals };
}

describe("charge", () => {
  it("takes the price from the balance and the key allowance in one step", async () => {
    const walletId = await fundedWallet(1000);
    const { agent_key } = await createAgentKey(deps, walletId, { limitCents: 500 });
    const result = await charge(deps.db, {
      walletId,
      agentKeyId: agent_key.id,
      amountCents: 299,
      jobId: jobId(),
      reason: "restore",
    });
    expect(result.balanceCents).toBe(701);
    expect(result.keyRemainingCents).toBe(201);
    expect((await reconcile(deps.db)).ok).toBe(true);
  });

  it("refuses with needs_topup when the balance is short, and changes nothing", async () => {
    const walletId = await fundedWallet(100);
    const err = await charge(deps.db, {
      walletId,
      agentKeyId: null,
      amountCents: 299,
      jobId: jobId(),
      reason: "restore",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(402);
    expect((err as ApiError).extra.needs_topup).toBe(true);
    expect((err as ApiError).detail).toMatch(/\$1\.00.*\$2\.99/);
    const w = await deps.db
      .selectFrom("wallets")
      .selectAll()
      .where("id", "=", walletId)
      .executeTakeFirstOrThrow();
    expect(w.balance_cents).toBe(100);
  });

  it("refuses with over_limit when the key allowance is short", async () => {
    const walletId = await fundedWallet(5000);
    const { agent_key } = await createAgentKey(deps, walletId, { limitCents: 100 });
    const err = (await charge(deps.db, {
      walletId,
      agentKeyId: agent_key.id,
      amountCents: 101,
      jobId: jobId(),
      reason: "clip",
    }).catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(402);
    expect(err.extra.over_limit).toBe(true);
  });

  it("refuses a paused wallet with 403", async () => {
    const walletId = await fundedWallet(5000);
    await deps.db.updateTable("wallets").set({ paused: true }).where("id", "=", walletId).execute();
    const err = (await charge(deps.db, {
      walletId,
      agentKeyId: null,
      amountCents: 59,
      jobId: jobId(),
      reason: "clip",
    }).catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(403);
  });
});

describe("concurrency", () => {
  const N = 5;
  const price = 59;

  it(`lets exactly N of 10×N concurrent charges through a key allowing N (${onPostgres ? "PostgreSQL" : "PGlite"})`, async () => {
    const walletId = await fundedWallet(100_000);
    const { agent_key } = await createAgentKey(deps, walletId, { limitCents: N * price });
    const attempts = Array.from({ length: 10 * N }, () =>
      charge(deps.db, {
        walletId,
        agentKeyId: agent_key.id,
        amountCents: price,
        jobId: jobId(),
        reason: "race",
      }),
    );
    const { ok, refusals } = await settle(attempts);
    expect(ok).toBe(N);
    expect(refusals.every((r) => r instanceof ApiError && r.extra.over_limit)).toBe(true);
    const key = await deps.db
      .selectFrom("agent_keys")
      .selectAll()
      .where("id", "=", agent_key.id)
      .executeTakeFirstOrThrow();
    expect(key.spent_cents).toBe(N * price);
    expect((await reconcile(deps.db)).ok).toBe(true);
  });

  it("lets exactly N of 10×N concurrent charges through a balance covering N", async () => {
    const walletId = await fundedWallet(N * price);
    const attempts = Array.from({ length: 10 * N }, () =>
      charge(deps.db, {
        walletId,
        agentKeyId: null,
        amountCents: price,
        jobId: jobId(),
        reason: "race",
      }),
    );
    const { ok, refusals } = await settle(attempts);
    expect(ok).toBe(N);
    expect(refusals.every((r) => r instanceof ApiError && r.extra.needs_topup)).toBe(true);
    const w = await deps.db
      .selectFrom("wallets")
      .selectAll()
      .where("id", "=", walletId)
      .executeTakeFirstOrThrow();
    expect(w.balance_cents).toBe(0);
  });

  it("negative control: a naive read-then-write charge lets more than N through", async () => {
    const walletId = await fundedWallet(100_000);
    const { agent_key } = await createAgentKey(deps, walletId, { limitCents: N * price });
    // Read the allowance, decide in JS, then write an absolute value: the classic lost update.
    const naiveCharge = async () => {
      const key = await deps.db
        .selectFrom("agent_keys")
        .select(["spent_cents", "limit_cents"])
        .where("id", "=", agent_key.id)
        .executeTakeFirstOrThrow();
      if (key.limit_cents - key.spent_cents < price) throw new Error("over limit");
      await sql`SELECT pg_sleep(0.001)`.execute(deps.db);
      await deps.db
        .updateTable("agent_keys")
        .set({ spent_cents: key.spent_cents + price })
        .where("id", "=", agent_key.id)
        .execute();
    };
    const { ok } = await settle(Array.from({ length: 10 * N }, naiveCharge));
    // Undo the corruption this control made on purpose, so later reconcile checks stay meaningful.
    await deps.db
      .updateTable("agent_keys")
      .set({ spent_cents: 0 })
      .where("id", "=", agent_key.id)
      .execute();
    // If this ever stops exceeding N, the race test above could no longer catch an overspend.
    expect(ok).toBeGreaterThan(N);
  });

  it("refunds a job exactly once when 50 refunds race", async () => {
    const walletId = await fundedWallet(1000);
    const { agent_key } = await createAgentKey(deps, walletId, { limitCents: 1000 });
    const id = jobId();
    await charge(deps.db, {
      walletId,
      agentKeyId: agent_key.id,
      amountCents: 299,
      jobId: id,
      reason: "restore",
    });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => refundJob(deps.db, id, "failed")),
    );
    expect(results.filter((r) => r.refunded)).toHaveLength(1);
    const w = await deps.db
      .selectFrom("wallets")
      .selectAll()
      .where("id", "=", walletId)
      .executeTakeFirstOrThrow();
    expect(w.balance_cents).toBe(1000);
    const key = await deps.db
      .selectFrom("agent_keys")
      .selectAll()
      .where("id", "=", agent_key.id)
      .executeTakeFirstOrThrow();
    expect(key.spent_cents).toBe(0);
    expect((await reconcile(deps.db)).ok).toBe(true);
  });
});

describe("credit", () => {
  it("credits a payment reference once however often it is delivered", async () => {
    const walletId = await fundedWallet(0);
    const input = {
      walletId,
      amountCents: 500,
      kind: "topup" as const,
      reference: `cs_${walletId}`,
      reason: "card",
    };
    const results = await Promise.all(Array.from({ length: 10 }, () => credit(deps.db, input)));
    expect(results.filter((r) => r.credited)).toHaveLength(1);
    const w = await deps.db
      .selectFrom("wallets")
      .selectAll()
      .where("id", "=", walletId)
      .executeTakeFirstOrThrow();
    expect(w.balance_cents).toBe(500);
  });

  it("never lets a negative adjustment take the balance below zero", async () => {
    const walletId = await fundedWallet(100);
    const result = await credit(deps.db, {
      walletId,
      amountCents: -101,
      kind: "adjustment",
      reference: "adj-1",
      reason: "correction",
    });
    expect(result.credited).toBe(false);
    expect(result.balanceCents).toBe(100);
  });

  it("keeps the ledger append-only", async () => {
    await expect(sql`UPDATE ledger_entries SET amount_cents = 0`.execute(deps.db)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`DELETE FROM ledger_entries`.execute(deps.db)).rejects.toThrow(/append-only/);
  });
});
