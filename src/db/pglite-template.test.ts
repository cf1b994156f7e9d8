import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { loadMigrations, migrate } from "./migrate.js";
import { ensureTemplate, readTemplate, templateName } from "./pglite-template.js";

const cacheDir = mkdtempSync(path.join(os.tmpdir(), "kinora-template-"));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

describe("the PGlite template", () => {
  it("is named after the migrations it holds, so a changed migration never uses a stale copy", () => {
    const migrations = loadMigrations();
    const name = templateName(migrations);
    expect(name).toMatch(/^pglite-[0-9a-f]{16}\.tar$/);
    expect(templateName(migrations)).toBe(name);
    const edited = migrations.map((m, i) =>
      i === migrations.length - 1 ? { ...m, statements: [...m.statements, "SELECT 1"] } : m,
    );
    expect(templateName(edited)).not.toBe(name);
    expect(templateName(migrations.slice(0, -1))).not.toBe(name);
  });

  it("is built once, replaces older templates, and holds every migration", async () => {
    writeFileSync(path.join(cacheDir, "pglite-0000000000000000.tar"), "old");
    const file = await ensureTemplate(cacheDir);
    expect(existsSync(file)).toBe(true);
    expect(readdirSync(cacheDir)).toEqual([path.basename(file)]);
    expect(await ensureTemplate(cacheDir)).toBe(file);

    const pglite = (await import("@electric-sql/pglite")).PGlite;
    const copy = await pglite.create("memory://", { loadDataDir: readTemplate(cacheDir) });
    const applied = await copy.query<{ name: string }>(
      "SELECT name FROM schema_migrations ORDER BY name",
    );
    expect(applied.rows.map((r) => r.name)).toEqual(loadMigrations().map((m) => m.name));
    const wallets = await copy.query<{ n: number }>("SELECT count(*)::int AS n FROM wallets");
    expect(wallets.rows[0]?.n).toBe(0);
    await copy.close();
  });

  it("gives a new data directory a working, migrated database; an existing one is kept", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "kinora-data-"));
    try {
      const first = await openDatabase({ dataDir });
      expect(await migrate(first.db)).toEqual(
        readTemplate() ? [] : loadMigrations().map((m) => m.name),
      );
      await first.db
        .insertInto("wallets")
        .values({ id: "w_template_test", key_hash: "h", created_at: new Date() })
        .execute();
      await first.close();
      const again = await openDatabase({ dataDir });
      const rows = await again.db.selectFrom("wallets").select("id").execute();
      expect(rows.map((r) => r.id)).toEqual(["w_template_test"]);
      await again.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
