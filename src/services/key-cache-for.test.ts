import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from "kysely";
import { describe, expect, it } from "vitest";
import type { Database } from "../db/database.js";
import type { DB } from "../db/schema.js";
import { keyCacheFor, mayWriteAuthTables } from "./key-cache-for.js";
import { chargeStatement } from "./ledger.js";

// Builds queries without a database, to look at what the plugin sees.
const db = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

describe("which statements empty the key cache", () => {
  const invalidating = {
    "a pause": db.updateTable("wallets").set({ paused: true }).where("id", "=", "wal_1"),
    "a revoke": db.updateTable("agent_keys").set({ revoked_at: new Date() }).where("id", "=", "k"),
    "a limit change": db.updateTable("agent_keys").set({ limit_cents: 5 }).where("id", "=", "k"),
    "a token revoke": db.updateTable("oauth_tokens").set({ revoked_at: new Date() }),
    "a new key": db.insertInto("agent_keys").values({
      id: "k",
      wallet_id: "w",
      key_hash: "h",
      label: "",
      kind: "agent",
      ask_before_spending: true,
      limit_cents: 1,
      created_at: new Date(),
    }),
    "a deleted wallet": db.deleteFrom("wallets").where("id", "=", "w"),
    "a charge (raw SQL with CTEs)": chargeStatement({
      walletId: "w",
      agentKeyId: "k",
      amountCents: 5,
      jobId: "rj_1",
      reason: "r",
    }),
    "a raw top-up": sql`UPDATE wallets SET balance_cents = balance_cents + ${5} WHERE id = ${"w"}`,
    "a table named through sql.table": sql`DELETE FROM ${sql.table("oauth_tokens")}`,
    "a schema change naming no auth table": sql`DROP SCHEMA t_1 CASCADE`,
    "a builder schema change": db.schema.alterTable("restore_jobs").addColumn("x", "text"),
  };
  for (const [what, query] of Object.entries(invalidating)) {
    it(`${what} does`, () => {
      expect(mayWriteAuthTables(query.toOperationNode())).toBe(true);
    });
  }

  const harmless = {
    "the key lookup": sql`SELECT k.wallet_id, k.revoked_at IS NOT NULL AS revoked, NULL AS created_at
      FROM agent_keys k JOIN wallets w ON w.id = k.wallet_id WHERE k.key_hash = ${"d"}`,
    "a builder read": db.selectFrom("wallets").selectAll().where("id", "=", "w"),
    "a write elsewhere": db.updateTable("restore_jobs").set({ status: "queued" }),
    "a raw write elsewhere": sql`UPDATE restore_jobs SET status = 'queued' WHERE id = ${"rj"}`,
    "a bound value that merely says wallets": db.insertInto("restore_card_refunds").values({
      job_id: "rj",
      amount_cents: 5,
      reason: "UPDATE wallets",
      created_at: new Date(),
    }),
  };
  for (const [what, query] of Object.entries(harmless)) {
    it(`${what} does not`, () => {
      expect(mayWriteAuthTables(query.toOperationNode())).toBe(false);
    });
  }
});

describe("keyCacheFor", () => {
  it("gives no cache on PostgreSQL, where another node may revoke or spend at any time", () => {
    const postgres = { backend: "postgres", db } as unknown as Database;
    const chosen = keyCacheFor(postgres);
    expect(chosen.keyCache).toBeUndefined();
    expect(chosen.database).toBe(postgres);
  });
});
