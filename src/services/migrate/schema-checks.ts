/**
 * The checks made before anything is written: the source is at exactly this build's schema,
 * and the target — once migrated — has the same tables and columns and not one row in them.
 * "Refuse a non-empty target" is the whole safety of the command: it can never merge two
 * installs or overwrite a live database.
 */
import { sql } from "kysely";
import { loadMigrations, type Migration, migrate } from "../../db/migrate.js";
import { type AnyDb, columnSignature, readTables, type TableShape } from "./catalog.js";
import { MigrationRefusedError } from "./report.js";

/** Names of the migrations a database has applied; empty when it has none at all. */
async function appliedMigrations(db: AnyDb): Promise<string[]> {
  const exists = await sql<{ present: boolean }>`
    SELECT to_regclass('schema_migrations') IS NOT NULL AS present`.execute(db);
  if (!exists.rows[0]?.present) return [];
  const rows = await sql<{ name: string }>`
    SELECT name FROM schema_migrations ORDER BY name`.execute(db);
  return rows.rows.map((r) => r.name);
}

/**
 * The source must have applied exactly this build's migrations: the copy moves rows between
 * identical schemas. The source is never migrated here — it stays as it was, as its backup.
 */
export async function checkSourceSchema(
  db: AnyDb,
  migrations: Migration[] = loadMigrations(),
): Promise<void> {
  const applied = new Set(await appliedMigrations(db));
  const known = new Set(migrations.map((m) => m.name));
  const missing = [...known].filter((n) => !applied.has(n));
  const unknown = [...applied].filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new MigrationRefusedError(
      "source_schema",
      `The embedded database was migrated by a newer kinora (${unknown.join(", ")}): run migrate with that version.`,
    );
  }
  if (missing.length > 0) {
    throw new MigrationRefusedError(
      "source_schema",
      `The embedded database lacks migrations of this kinora (${missing.join(", ")}): start \`kinora serve\` once with this version (it migrates at start), stop it, then migrate.`,
    );
  }
}

/** Which of `tables` hold at least one row (tables that do not exist are skipped). */
export async function nonEmptyTables(db: AnyDb, tables: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const name of tables) {
    const present = await sql<{ present: boolean }>`
      SELECT to_regclass(${name}) IS NOT NULL AS present`.execute(db);
    if (!present.rows[0]?.present) continue;
    const rows = await sql<{ any: boolean }>`
      SELECT EXISTS (SELECT 1 FROM ${sql.id(name)}) AS any`.execute(db);
    if (rows.rows[0]?.any) found.push(name);
  }
  return found;
}

/** Thrown as the refusal: names the tables that already hold rows. */
export function refuseNonEmpty(tables: string[]): MigrationRefusedError {
  return new MigrationRefusedError(
    "target_not_empty",
    `The target database is not empty (rows in ${tables.join(", ")}): migrate only copies into a fresh database, so nothing was written. Create an empty database and pass its URL.`,
  );
}

/**
 * Runs kinora's migrations on the target, then refuses it unless every copied table exists
 * there with the source's columns and holds no rows. A target with rows is refused before
 * migrating too, so a live database of another install is not even migrated.
 */
export async function prepareTarget(
  db: AnyDb,
  plan: readonly TableShape[],
  migrations?: Migration[],
): Promise<void> {
  const names = plan.map((t) => t.name);
  const before = await nonEmptyTables(db, names);
  if (before.length > 0) throw refuseNonEmpty(before);
  await migrate(db, migrations);
  const targetTables = await readTables(db);
  const mismatched = plan.filter((t) => {
    const there = targetTables.get(t.name);
    return !there || columnSignature(there) !== columnSignature(t);
  });
  if (mismatched.length > 0) {
    throw new Error(
      `The target's tables differ from the source's after migrating (${mismatched.map((t) => t.name).join(", ")}): is another application using this database?`,
    );
  }
  const nonEmpty = await nonEmptyTables(db, names);
  if (nonEmpty.length > 0) throw refuseNonEmpty(nonEmpty);
}
