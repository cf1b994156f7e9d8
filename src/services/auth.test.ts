/**
 * Authentication with the key cache `kinora serve` builds on PGlite: every test tries to
 * reach a stale row (a revoked key, a paused wallet, old money, an expired or revoked token)
 * right after the write that should have made it stale. And without a cache on PostgreSQL:
 * another node's write shows on this node's next lookup.
 */
import { createHash, randomBytes } from "node:crypto";
import { type KyselyPlugin, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createTestApp } from "../../test/app.js";
import { onPostgres, openTestDatabase, type TestDatabase } from "../../test/db.js";
import { coreDeps, testClock } from "../../test/deps.js";
import { openDatabase } from "../db/database.js";
import { ApiError } from "../domain/errors.js";
import { hashSecret } from "../domain/ids.js";
import { ACCESS_TTL_MS, createCode, exchangeCode, revokeToken } from "../oauth/tokens.js";
import { createAgentKey, createConnectedApp, revokeAgentKey } from "./agent-keys.js";
import { authenticate, authenticateAccessToken } from "./auth.js";
import type { CoreDeps } from "./deps.js";
import type { KeyCache } from "./key-cache.js";
import { keyCacheFor } from "./key-cache-for.js";
import { charge, credit, refundJob } from "./ledger.js";
import { createWallet, setWalletPaused, walletView } from "./wallets.js";

const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (err: unknown) => (err instanceof ApiError ? err.status : 500),
  );

async function fundedWallet(deps: CoreDeps, cents: number) {
  const { key, wallet } = await createWallet(deps, {});
  await credit(deps.db, {
    walletId: wallet.wallet_id,
    amountCents: cents,
    kind: "topup",
    reference: `seed-${wallet.wallet_id}`,
    reason: "test funds",
  });
  return { key, walletId: wallet.wallet_id };
}

describe.skipIf(onPostgres)("authentication with the key cache (PGlite)", () => {
  let opened: TestDatabase;
  let deps: CoreDeps;
  let keyCache: KeyCache;
  let lookups = 0;
  const clock = testClock();
  /** While set, a lookup's result waits here after the read (so a write can slip in). */
  let hold: { reached: () => void; release: Promise<void> } | undefined;
  const lookupIds = new WeakSet<object>();
  // Counts the authentication reads that reach the database, and can hold their results.
  const watchLookups: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      if (node.kind === "RawNode" && node.sqlFragments.join("").includes("_hash =")) {
        lookups++;
        lookupIds.add(queryId);
      }
      return node;
    },
    async transformResult({ result, queryId }) {
      const held = hold;
      if (held && lookupIds.has(queryId)) {
        hold = undefined;
        held.reached();
        await held.release;
      }
      return result;
    },
  };

  beforeAll(async () => {
    opened = await openTestDatabase();
    const cached = keyCacheFor(opened);
    keyCache = cached.keyCache as KeyCache;
    deps = {
      ...coreDeps(cached.database, clock),
      db: cached.database.db.withPlugin(watchLookups),
      keyCache,
    };
  });
  afterAll(async () => {
    await opened.cleanup();
  });

  it("answers a repeated lookup from memory, filed under the key's digest and not the key", async () => {
    const { key, walletId } = await fundedWallet(deps, 1000);
    const before = lookups;
    const first = await authenticate(deps, key);
    const second = await authenticate(deps, key);
    expect(lookups - before).toBe(1);
    expect(second).toEqual(first);
    expect(second).toMatchObject({ kind: "wallet", walletId });
    const entry = keyCache.get(hashSecret(key));
    expect(entry?.row.wallet_id).toBe(walletId);
    expect(JSON.stringify(entry)).not.toContain(key);
  });

  it("a revoked agent key fails on the very next request", async () => {
    const { walletId } = await fundedWallet(deps, 1000);
    const { key, agent_key } = await createAgentKey(deps, walletId, { limitCents: 500 });
    await authenticate(deps, key);
    await authenticate(deps, key); // now from the cache
    await revokeAgentKey(deps, walletId, agent_key.id);
    await expect(status(authenticate(deps, key))).resolves.toBe(401);
  });

  it("pause then spend: the next lookup shows the pause and the charge is refused; unpause shows at once", async () => {
    const { key, walletId } = await fundedWallet(deps, 1000);
    const live = await authenticate(deps, key);
    expect((await walletView(deps, live)).spendable_cents).toBe(1000);
    await setWalletPaused(deps, walletId, true, "review");
    const paused = await authenticate(deps, key);
    expect(paused.snapshot?.paused).toBe(true);
    expect((await walletView(deps, paused)).spendable_cents).toBe(0);
    const spend = charge(deps.db, {
      walletId,
      agentKeyId: null,
      amountCents: 100,
      jobId: "rj_paused",
      reason: "test",
    });
    await expect(status(spend)).resolves.toBe(403);
    await setWalletPaused(deps, walletId, false, null);
    expect((await authenticate(deps, key)).snapshot?.paused).toBe(false);
  });

  it("money is never stale: a charge, a refund and a top-up each show on the next lookup", async () => {
    const { walletId } = await fundedWallet(deps, 1000);
    const { key, agent_key } = await createAgentKey(deps, walletId, { limitCents: 500 });
    const snap = async () => (await authenticate(deps, key)).snapshot;
    expect(await snap()).toMatchObject({ balanceCents: 1000, key: { spentCents: 0 } });
    const jobId = `rj_${randomBytes(6).toString("hex")}`;
    await charge(deps.db, {
      walletId,
      agentKeyId: agent_key.id,
      amountCents: 300,
      jobId,
      reason: "t",
    });
    const charged = await snap();
    expect(charged).toMatchObject({ balanceCents: 700, key: { spentCents: 300 } });
    expect(charged?.key?.lastUsedAt).not.toBeNull();
    await refundJob(deps.db, jobId, "failed");
    expect(await snap()).toMatchObject({ balanceCents: 1000, key: { spentCents: 0 } });
    await credit(deps.db, {
      walletId,
      amountCents: 250,
      kind: "topup",
      reference: `more-${walletId}`,
      reason: "top-up",
    });
    expect((await snap())?.balanceCents).toBe(1250);
  });

  it("a limit change by any statement shows on the next lookup; a rolled-back one never does", async () => {
    const { walletId } = await fundedWallet(deps, 1000);
    const { key, agent_key } = await createAgentKey(deps, walletId, { limitCents: 500 });
    await authenticate(deps, key);
    await sql`UPDATE agent_keys SET limit_cents = 777 WHERE id = ${agent_key.id}`.execute(deps.db);
    expect((await authenticate(deps, key)).snapshot?.key?.limitCents).toBe(777);
    const rollback = deps.db.transaction().execute(async (tx) => {
      await tx
        .updateTable("agent_keys")
        .set({ limit_cents: 1 })
        .where("id", "=", agent_key.id)
        .execute();
      throw new Error("roll back");
    });
    await expect(rollback).rejects.toThrow("roll back");
    expect((await authenticate(deps, key)).snapshot?.key?.limitCents).toBe(777);
  });

  it("a connected app's access token stops on the next request when it expires, is revoked, or its app is", async () => {
    const { walletId } = await fundedWallet(deps, 1000);
    const app = await createConnectedApp(deps, walletId, {
      clientId: "client-1",
      clientName: "Test app",
      redirectHost: "app.example",
      limitCents: 500,
      askBeforeSpending: true,
    });
    const resource = "http://kinora.test/mcp";
    const signIn = async () => {
      const verifier = randomBytes(32).toString("base64url");
      const code = await createCode(deps, {
        clientId: "client-1",
        agentKeyId: app.id,
        redirectUri: "https://app.example/cb",
        codeChallenge: createHash("sha256").update(verifier).digest("base64url"),
        resource,
      });
      const tokens = await exchangeCode(deps, {
        code,
        clientId: "client-1",
        redirectUri: "https://app.example/cb",
        codeVerifier: verifier,
        resource,
        expectedResource: resource,
      });
      await authenticateAccessToken(deps, tokens.access_token, resource);
      await authenticateAccessToken(deps, tokens.access_token, resource); // cached
      expect(keyCache.get(hashSecret(tokens.access_token))?.kind).toBe("token");
      return tokens.access_token;
    };
    const use = (token: string) => status(authenticateAccessToken(deps, token, resource));

    const expiring = await signIn();
    const signedInAt = clock.now();
    clock.advance(ACCESS_TTL_MS);
    await expect(use(expiring)).resolves.toBe(401);
    clock.set(signedInAt);

    const revoked = await signIn();
    await revokeToken(deps, revoked, "client-1");
    await expect(use(revoked)).resolves.toBe(401);

    const ofTheApp = await signIn();
    await revokeAgentKey(deps, walletId, app.id);
    await expect(use(ofTheApp)).resolves.toBe(401);
  });

  it("a lookup that read before a revoke answers as of its read, and does not store that row", async () => {
    const { walletId } = await fundedWallet(deps, 1000);
    const { key, agent_key } = await createAgentKey(deps, walletId, { limitCents: 10 });
    let reached = () => {};
    let release = () => {};
    const readDone = new Promise<void>((r) => {
      reached = r;
    });
    hold = { reached, release: new Promise<void>((r) => (release = r)) };
    const early = status(authenticate(deps, key)); // cold: reads the database
    await readDone; // it has read the live row, and not yet stored it
    await revokeAgentKey(deps, walletId, agent_key.id);
    release();
    await expect(early).resolves.toBe(200);
    expect(keyCache.get(hashSecret(key))).toBeUndefined();
    await expect(status(authenticate(deps, key))).resolves.toBe(401);
  });

  it("concurrent lookups around a revoke: none after it succeeds, and no live row stays behind", async () => {
    const { walletId } = await fundedWallet(deps, 1000);
    for (let round = 0; round < 10; round++) {
      const { key, agent_key } = await createAgentKey(deps, walletId, { limitCents: 10 });
      // Half the rounds start cold, so lookups race to store what they read.
      if (round % 2 === 0) await authenticate(deps, key);
      const before = Array.from({ length: 4 }, () => status(authenticate(deps, key)));
      const revoke = revokeAgentKey(deps, walletId, agent_key.id);
      const during = Array.from({ length: 4 }, () => status(authenticate(deps, key)));
      await revoke;
      await expect(status(authenticate(deps, key))).resolves.toBe(401);
      for (const s of await Promise.all([...before, ...during])) expect([200, 401]).toContain(s);
      await expect(status(authenticate(deps, key))).resolves.toBe(401);
      expect(keyCache.get(hashSecret(key))?.row.revoked ?? true).toBe(true);
    }
  });
});

describe.skipIf(onPostgres)("over HTTP, composed as `kinora serve` composes it (PGlite)", () => {
  it("GET /wallet answers from the cache, and sees a revoke and a pause on the next request", async () => {
    const t = await createTestApp();
    try {
      expect(t.platform.keyCache).toBeDefined();
      const owner = await t.newWallet(1000);
      const agent = await t.newAgentKey(owner.key, 500);
      for (let i = 0; i < 2; i++) {
        expect((await t.call("GET", "/wallet", { key: agent.key })).status).toBe(200);
      }
      await t.call("POST", `/admin/wallets/${owner.walletId}/pause`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        body: { reason: "review" },
      });
      const paused = await t.call("GET", "/wallet", { key: agent.key });
      expect(paused.body.wallet).toMatchObject({ paused: true, spendable_cents: 0 });
      await t.call("POST", `/wallet/keys/${agent.id}/revoke`, { key: owner.key });
      expect((await t.call("GET", "/wallet", { key: agent.key })).status).toBe(401);
      expect((await t.call("GET", "/wallet", { key: owner.key })).body.wallet.paused).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe("authentication without a cache (PostgreSQL)", () => {
  it.runIf(onPostgres)(
    "a key revoked or a wallet charged through another node shows on this node's next lookup",
    async () => {
      const opened = await openTestDatabase();
      const [{ schema }] = (
        await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(opened.db)
      ).rows as [{ schema: string }];
      const other = await openDatabase({
        databaseUrl: process.env.DATABASE_URL,
        schema,
        poolSize: 2,
      });
      try {
        const node = keyCacheFor(opened);
        expect(node.keyCache).toBeUndefined();
        const deps = { ...coreDeps(node.database), keyCache: node.keyCache };
        const otherDeps = coreDeps({ ...other, cleanup: async () => {} });
        const { walletId } = await fundedWallet(deps, 1000);
        const { key, agent_key } = await createAgentKey(deps, walletId, { limitCents: 500 });
        expect((await authenticate(deps, key)).snapshot?.balanceCents).toBe(1000);
        await charge(other.db, {
          walletId,
          agentKeyId: agent_key.id,
          amountCents: 100,
          jobId: "rj_other",
          reason: "t",
        });
        expect((await authenticate(deps, key)).snapshot?.balanceCents).toBe(900);
        await revokeAgentKey(otherDeps, walletId, agent_key.id);
        await expect(status(authenticate(deps, key))).resolves.toBe(401);
      } finally {
        await other.close();
        await opened.cleanup();
      }
    },
  );
});
