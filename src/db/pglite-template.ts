/**
 * A migrated, empty PGlite database kept as a tar file, so a new data directory (and every
 * in-memory test database) starts from a copy instead of running initdb: on this machine
 * initdb takes ~6 s on disk and ~2 s in memory, loading the copy ~1.2 s and ~0.6 s.
 *
 * The file is made by the build (`npm install` runs it) and named after what it contains: the
 * PGlite version and every migration's text. A changed migration or a PGlite upgrade gives a
 * new name, so a stale copy is never used; without one, PGlite runs initdb as before.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect } from "kysely";
import { recordOf } from "../domain/records.js";
import { packageRoot } from "../package-root.js";
import { loadMigrations, type Migration, migrate } from "./migrate.js";

const DEFAULT_CACHE_DIR = path.join(packageRoot(), "node_modules", ".cache", "kinora");

function pgliteVersion(): string {
  // The package exports no ./package.json: find it above the resolved entry point.
  let dir = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  while (!existsSync(path.join(dir, "package.json"))) dir = path.dirname(dir);
  return String(recordOf(JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"))).version);
}

/** The template's file name: changes whenever the database it holds would differ. */
export function templateName(migrations: Migration[] = loadMigrations()): string {
  const hash = createHash("sha256").update(`pglite ${pgliteVersion()}\n`);
  for (const m of migrations) hash.update(`${m.name}\n${m.statements.join("\n;\n")}\n`);
  return `pglite-${hash.digest("hex").slice(0, 16)}.tar`;
}

function templatePath(cacheDir = DEFAULT_CACHE_DIR): string {
  return path.join(cacheDir, templateName());
}

/** The template's bytes, or undefined when it has not been built for these migrations. */
export function readTemplate(cacheDir = DEFAULT_CACHE_DIR): Blob | undefined {
  const file = templatePath(cacheDir);
  if (!existsSync(file)) return undefined;
  try {
    return new Blob([readFileSync(file)]);
  } catch {
    return undefined;
  }
}

/**
 * Builds the template if it is missing (initdb in memory, then the migrations) and removes
 * templates of older migrations. Written to a temporary name and renamed, so a reader never
 * sees half a file. Returns its path.
 */
export async function ensureTemplate(cacheDir = DEFAULT_CACHE_DIR): Promise<string> {
  const file = templatePath(cacheDir);
  if (existsSync(file)) return file;
  const pglite = await PGlite.create("memory://");
  const db = new Kysely({ dialect: new PGliteDialect({ pglite }) });
  try {
    await migrate(db);
    const tar = Buffer.from(await (await pglite.dumpDataDir("none")).arrayBuffer());
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${file}.${process.pid}.part`;
    await writeFile(partial, tar);
    renameSync(partial, file);
  } finally {
    await db.destroy();
  }
  for (const old of readdirSync(cacheDir)) {
    const stale = old.startsWith("pglite-") && path.join(cacheDir, old) !== file;
    if (stale && !old.endsWith(".part")) rmSync(path.join(cacheDir, old), { force: true });
  }
  return file;
}
