/**
 * A database for a test that starts a real `kinora serve` (startServer): on PostgreSQL (when
 * DATABASE_URL is set) a fresh database of its own, dropped afterwards; on PGlite nothing —
 * the server opens DATA_DIR itself.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export interface ServerDatabase {
  /** Environment for loadConfig: DATABASE_URL on PostgreSQL, nothing on PGlite. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** On the PostgreSQL server at `url` (default DATABASE_URL); nothing on PGlite. */
export async function serverDatabase(
  url: string | undefined = process.env.DATABASE_URL,
): Promise<ServerDatabase> {
  if (!url) return { env: {}, drop: async () => {} };
  const name = `kinora_t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: own.toString() },
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
