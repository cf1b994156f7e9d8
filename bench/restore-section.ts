/**
 * `npx tsx bench/restore-section.ts`: only the cloud restore figures (same as in run.ts).
 * `npx tsx bench/restore-section.ts engine`: only the engine vs bare ffmpeg figures (10 s and
 * 30 s clips) and the worker's order of steps.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "../src/db/database.js";
import { migrate } from "../src/db/migrate.js";
import { printFigure } from "./lib.js";
import { openBenchSchema } from "./pg-schema.js";
import { benchPickup } from "./pickup.js";
import { restoreFigures } from "./restore.js";
import { benchUpload, uploadBenchBytes } from "./upload.js";

const quick = process.env.BENCH_QUICK === "1";

async function main() {
  const engineOnly = process.argv[2] === "engine";
  if (!engineOnly) for (const f of await benchUpload(uploadBenchBytes(quick))) printFigure(f);
  for (const f of await restoreFigures(quick)) printFigure(f);
  if (engineOnly) return;
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-"));
  const pglite = await openDatabase({ dataDir: dir });
  await migrate(pglite.db);
  for (const f of await benchPickup(pglite, "PGlite", quick ? 50 : 300)) printFigure(f);
  await pglite.close();
  rmSync(dir, { recursive: true, force: true });
  if (process.env.DATABASE_URL) {
    const db = await openBenchSchema(process.env.DATABASE_URL);
    try {
      for (const f of await benchPickup(db, "PostgreSQL", quick ? 50 : 300)) printFigure(f);
    } finally {
      await db.close();
    }
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
