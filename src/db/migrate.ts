/**
 * Applies the plain-SQL files in ./migrations in name order, each in one transaction, one
 * statement per call (PGlite refuses multi-statement prepared queries). An advisory lock
 * serialises concurrent starts of several API nodes on PostgreSQL.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Kysely, sql } from "kysely";
import { splitSqlStatements } from "./split-sql.js";

// Beside this file in src/db; in the compiled bundle (dist/*.js) the build copies them to
// dist/db/migrations.
const here = path.dirname(fileURLToPath(import.meta.url));
const MIGRATIONS_DIR =
  [path.join(here, "migrations"), path.join(here, "db", "migrations")].find((dir) =>
    existsSync(dir),
  ) ?? path.join(here, "migrations");
const MIGRATION_LOCK_ID = 7_130_001;

/** One migration file: its name and its statements. */
export interface Migration {
  name: string;
  statements: string[];
}

/** The migrations in src/db/migrations, in name order. */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((name) => ({
      name,
      statements: splitSqlStatements(readFileSync(path.join(dir, name), "utf8")),
    }));
}

/** Returns the names of migrations applied by this call. */
export async function migrate(
  // cast: migrations run before the typed schema exists (and create it)
  // biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
  db: Kysely<any>,
  migrations = loadMigrations(),
): Promise<string[]> {
  await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(db);
  // Most starts have nothing to do: one read, no locks (each name is re-checked under the lock).
  const before = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(db);
  const done = new Set(before.rows.map((r) => r.name));
  const applied: string[] = [];
  for (const migration of migrations.filter((m) => !done.has(m.name))) {
    await db.transaction().execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`.execute(tx);
      const done = await sql<{ name: string }>`
        SELECT name FROM schema_migrations WHERE name = ${migration.name}`.execute(tx);
      if (done.rows.length > 0) return;
      for (const statement of migration.statements) {
        await sql.raw(statement).execute(tx);
      }
      await sql`INSERT INTO schema_migrations (name) VALUES (${migration.name})`.execute(tx);
      applied.push(migration.name);
    });
  }
  return applied;
}
