/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or — when
 * DATABASE_URL is set (CI does) — a schema of its own on that PostgreSQL, dropped afterwards.
 *
 * Migrating a new schema takes ~1.1 s here. A database of its own per file, copied from a
 * migrated template (CREATE DATABASE … TEMPLATE, ~0.1 s), was tried on 2026-12-03 and was slower
 * over all: run back to back, `test/api/` took 13.0 s against 9.8 s. A whole run on PostgreSQL
 * took 1039 s, against 638 s for a run without it an hour earlier. The likely reason, not
 * measured: every new connection to a new database starts with cold catalog caches, and the
 * pools open many. Batching each migration's statements saved only ~20 %: the DDL itself is the
 * cost.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { type Database, openDatabase } from "../src/db/database.js";
import { migrate } from "../src/db/migrate.js";

export interface TestDatabase extends Database {
  /** Drops the schema (PostgreSQL) and closes connections. */
  cleanup(): Promise<void>;
}

export const onPostgres = Boolean(process.env.DATABASE_URL);

export async function openTestDatabase(opts: { poolSize?: number } = {}): Promise<TestDatabase> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const database = await openDatabase({ dataDir: "memory://" });
    await migrate(database.db);
    return { ...database, cleanup: () => database.close() };
  }
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const database = await openDatabase({ databaseUrl: url, schema, poolSize: opts.poolSize ?? 12 });
  await migrate(database.db);
  return {
    ...database,
    async cleanup() {
      await database.close();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}
