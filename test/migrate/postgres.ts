/**
 * PostgreSQL for the migrate tests, which need it even when the suite runs on PGlite: the
 * server at DATABASE_URL, or the local one on 127.0.0.1:5432; a fresh database per test,
 * dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export async function postgresReachable(url = ADMIN_URL): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function admin<T>(run: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function freshDatabase(): Promise<FreshDatabase> {
  const name = `kinora_mig_${randomBytes(6).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`).then(() => {}));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => {})),
  };
}
