/**
 * `npx tsx bench/cluster-section.ts`: only the running-several-nodes figures (same as in
 * run.ts): cold start, charges through two nodes vs one, rate-limiter overhead.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { type Database, openDatabase } from "../src/db/database.js";
import { migrate } from "../src/db/migrate.js";
import { benchClusterCharges, benchColdStart } from "./cluster.js";
import { type Figure, printFigure } from "./lib.js";
import { benchRateLimitOverhead } from "./rate-limit.js";

/** Runs the section, handing each figure to `show` as soon as it is measured. */
export async function clusterSection(quick: boolean, show: (f: Figure) => void): Promise<void> {
  show(await benchColdStart(quick ? 3 : 7));
  const charges = await benchClusterCharges(quick ? 600 : 2000);
  if (charges) show(charges);
  const requests = quick ? 1000 : 5000;
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-"));
  const pglite = await openDatabase({ dataDir: dir });
  try {
    await migrate(pglite.db);
    (await benchRateLimitOverhead(pglite, "PGlite", requests)).forEach(show);
  } finally {
    await pglite.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const url = process.env.DATABASE_URL;
  if (url)
    await withSchema(url, async (db) =>
      (await benchRateLimitOverhead(db, "PostgreSQL", requests)).forEach(show),
    );
}

async function withSchema(url: string, fn: (db: Database) => Promise<void>): Promise<void> {
  const schema = `bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const db = await openDatabase({ databaseUrl: url, schema });
  try {
    await migrate(db.db);
    await fn(db);
  } finally {
    await db.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  clusterSection(process.env.BENCH_QUICK === "1", printFigure).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
