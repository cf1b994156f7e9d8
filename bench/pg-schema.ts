/**
 * A migrated database in a schema of its own on a PostgreSQL, for one benchmark run: created
 * on open, dropped (with everything in it) on close, so runs never see each other's rows.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { type Database, openDatabase } from "../src/db/database.js";
import { migrate } from "../src/db/migrate.js";

/** Runs one statement on its own connection (the schema's create and drop). */
async function adminQuery(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Opens `url` in a fresh `bench_…` schema, migrated; `close` drops the schema. */
export async function openBenchSchema(
  url: string,
  poolSize = 10,
): Promise<Database & { close(): Promise<void> }> {
  const schema = `bench_${randomBytes(6).toString("hex")}`;
  await adminQuery(url, `CREATE SCHEMA ${schema}`);
  const database = await openDatabase({ databaseUrl: url, schema, poolSize });
  try {
    await migrate(database.db);
  } catch (err) {
    await database.close();
    await adminQuery(url, `DROP SCHEMA ${schema} CASCADE`);
    throw err;
  }
  return {
    ...database,
    async close() {
      await database.close();
      await adminQuery(url, `DROP SCHEMA ${schema} CASCADE`);
    },
  };
}
