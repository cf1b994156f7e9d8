/**
 * A seeded simulation of random ledger operations — charges by wallet and agent keys, refunds
 * (some repeated), top-ups (some redelivered), operator debits, key revocations — checking a
 * model of every balance and allowance and the reconcile invariants after each step.
 * On failure it prints the seed; rerun with SIM_SEED=<seed>.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiError } from "../src/domain/errors.js";
import { createAgentKey, revokeAgentKey } from "../src/services/agent-keys.js";
import type { CoreDeps } from "../src/services/deps.js";
import { charge, credit, refundJob } from "../src/services/ledger.js";
import { reconcile } from "../src/services/reconcile.js";
import { createWallet } from "../src/services/wallets.js";
import { openTestDatabase, type TestDatabase } from "./db.js";
import { coreDeps } from "./deps.js";

let database: TestDatabase;
let deps: CoreDeps;
beforeAll(async () => {
  database = await openTestDatabase();
  deps = coreDeps(database);
});
afterAll(async () => {
  await database.cleanup();
});

/** mulberry32: small, seedable, good enough to drive a simulation. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface ModelKey {
  id: string;
  limit: number;
  spent: number;
  revoked: boolean;
}
interface ModelWallet {
  id: string;
  balance: number;
  keys: ModelKey[];
}
interface ModelJob {
  id: string;
  walletId: string;
  key: ModelKey | null;
  price: number;
  refunded: boolean;
}

it("keeps every invariant through 300 random operations", async () => {
  const seed = Number(process.env.SIM_SEED ?? Date.now() % 1_000_000);
  const rand = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const wallets: ModelWallet[] = [];
  const jobs: ModelJob[] = [];
  let step = 0;
  try {
    for (let i = 0; i < 3; i++) {
      const { wallet } = await createWallet(deps, {});
      wallets.push({ id: wallet.wallet_id, balance: 0, keys: [] });
    }
    for (step = 0; step < 300; step++) {
      const w = pick(wallets);
      const op = rand();
      if (op < 0.15) {
        const amount = 100 + Math.floor(rand() * 2000);
        const ref = rand() < 0.2 && step > 0 ? `pay-${w.id}-${step - 1}` : `pay-${w.id}-${step}`;
        const r = await credit(deps.db, {
          walletId: w.id,
          amountCents: amount,
          kind: "topup",
          reference: ref,
          reason: "sim",
        });
        if (r.credited) w.balance += amount;
      } else if (op < 0.25) {
        const limit = 1 + Math.floor(rand() * 3000);
        const { agent_key } = await createAgentKey(deps, w.id, { limitCents: limit });
        w.keys.push({ id: agent_key.id, limit, spent: 0, revoked: false });
      } else if (op < 0.3 && w.keys.length > 0) {
        const k = pick(w.keys);
        await revokeAgentKey(deps, w.id, k.id);
        k.revoked = true;
      } else if (op < 0.7) {
        const key = w.keys.length > 0 && rand() < 0.6 ? pick(w.keys) : null;
        const price = pick([59, 99, 299, 499, 899]);
        const jobId = deps.ids("rj");
        const expectOk =
          w.balance >= price && (!key || (!key.revoked && key.limit - key.spent >= price));
        try {
          await charge(deps.db, {
            walletId: w.id,
            agentKeyId: key?.id ?? null,
            amountCents: price,
            jobId,
            reason: "sim",
          });
          expect(expectOk, "charge succeeded but the model says it should be refused").toBe(true);
          w.balance -= price;
          if (key) key.spent += price;
          jobs.push({ id: jobId, walletId: w.id, key, price, refunded: false });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          expect(expectOk, `charge refused (${err.detail}) but the model says it fits`).toBe(false);
        }
      } else if (op < 0.9 && jobs.length > 0) {
        const job = pick(jobs);
        const r = await refundJob(deps.db, job.id, "sim");
        expect(r.refunded).toBe(!job.refunded);
        if (!job.refunded) {
          job.refunded = true;
          const owner = wallets.find((x) => x.id === job.walletId) as ModelWallet;
          owner.balance += job.price;
          if (job.key) job.key.spent -= job.price;
        }
      } else {
        const amount = -(1 + Math.floor(rand() * 500));
        const r = await credit(deps.db, {
          walletId: w.id,
          amountCents: amount,
          kind: "adjustment",
          reference: `adj-${step}`,
          reason: "sim",
        });
        expect(r.credited).toBe(w.balance + amount >= 0);
        if (r.credited) w.balance += amount;
      }
      await checkAgainstModel(wallets);
    }
  } catch (err) {
    console.error(`ledger simulation failed at step ${step}; rerun with SIM_SEED=${seed}`);
    throw err;
  }
}, 120_000);

async function checkAgainstModel(wallets: ModelWallet[]) {
  for (const w of wallets) {
    const row = await deps.db
      .selectFrom("wallets")
      .select("balance_cents")
      .where("id", "=", w.id)
      .executeTakeFirstOrThrow();
    expect(row.balance_cents).toBe(w.balance);
    for (const k of w.keys) {
      const kr = await deps.db
        .selectFrom("agent_keys")
        .select("spent_cents")
        .where("id", "=", k.id)
        .executeTakeFirstOrThrow();
      expect(kr.spent_cents).toBe(k.spent);
    }
  }
  const report = await reconcile(deps.db);
  expect(report.drift).toEqual([]);
}
