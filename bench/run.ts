/**
 * `npm run bench`: every figure beside a baseline measured in the same run, as a ratio.
 * Sections: foundation (ledger, HTTP) on PGlite (on disk) and on PostgreSQL when reachable,
 * upload, parts (uploads in parts vs one PUT), restore, pickup, clips, cluster. `npm run bench -- upload foundation` runs only
 * those sections. BENCH_QUICK=1 shrinks the workloads for a smoke run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { type Database, openDatabase } from "../src/db/database.js";
import { migrate } from "../src/db/migrate.js";
import { benchClip } from "./clip.js";
import { clusterSection } from "./cluster-section.js";
import { benchGetWallet } from "./http-wallet.js";
import { benchCharges } from "./ledger.js";
import { type Figure, printFigure } from "./lib.js";
import { benchMcpBalance } from "./mcp.js";
import { benchMetricsOverhead } from "./metrics.js";
import { benchPickup } from "./pickup.js";
import { benchPrompt } from "./prompt.js";
import { restoreFigures } from "./restore.js";
import { benchUpload, uploadBenchBytes } from "./upload.js";
import { benchUploadParts, partsBenchBytes } from "./upload-parts.js";

const quick = process.env.BENCH_QUICK === "1";
const POSTGRES_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function withPglite<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-"));
  const database = await openDatabase({ dataDir: dir });
  try {
    await migrate(database.db);
    return await fn(database);
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function withPostgres<T>(fn: (db: Database) => Promise<T>): Promise<T | undefined> {
  const schema = `bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  try {
    await admin.connect();
  } catch {
    process.stdout.write(`  (PostgreSQL not reachable at ${POSTGRES_URL}: skipped)\n`);
    return undefined;
  }
  await admin.query(`CREATE SCHEMA ${schema}`);
  const database = await openDatabase({ databaseUrl: POSTGRES_URL, schema, poolSize: 10 });
  try {
    await migrate(database.db);
    return await fn(database);
  } finally {
    await database.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

const SECTIONS = [
  "foundation",
  "upload",
  "parts",
  "restore",
  "pickup",
  "clips",
  "cluster",
] as const;
type Section = (typeof SECTIONS)[number];

/** The sections named on the command line (all when none is). */
function chosenSections(): Set<Section> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((a) => !SECTIONS.includes(a as Section));
  if (unknown.length > 0) {
    throw new Error(
      `unknown bench section ${unknown.join(", ")}; sections: ${SECTIONS.join(", ")}`,
    );
  }
  return new Set(asked.length > 0 ? (asked as Section[]) : SECTIONS);
}

async function main() {
  const run = chosenSections();
  const figures: Figure[] = [];
  const show = (fs: Figure[]) => {
    for (const f of fs) {
      figures.push(f);
      printFigure(f);
    }
  };
  const charges = quick ? 400 : 4000;
  const requests = quick ? 1000 : 8000;
  if (run.has("foundation")) {
    process.stdout.write("foundation: ledger and HTTP\n");
    await withPglite(async (db) => {
      show([await benchCharges(db, "PGlite", charges / 2)]);
      show([await benchGetWallet(db, "PGlite", requests)]);
      show(await benchMcpBalance(db, "PGlite", requests / 2));
      show([await benchMetricsOverhead(db, "PGlite", requests / 2)]);
    });
    await withPostgres(async (db) => {
      show([await benchCharges(db, "PostgreSQL", charges)]);
      show([await benchGetWallet(db, "PostgreSQL", requests)]);
      show(await benchMcpBalance(db, "PostgreSQL", requests / 2));
    });
  }
  if (run.has("upload") || run.has("parts") || run.has("restore") || run.has("pickup")) {
    process.stdout.write("cloud restore: upload, engine, job pickup\n");
  }
  if (run.has("upload")) {
    const bytes = uploadBenchBytes(quick);
    show(await benchUpload(bytes, bytes > 1024 ** 3 ? 1 : 3));
  }
  if (run.has("parts")) {
    const bytes = partsBenchBytes(quick);
    // BENCH_ROUNDS=n: another number of rounds. Ten at 2 GiB (about two minutes): runs of two
    // or four rounds on a quiet machine read anything from 0.63 to 1.14 (2026-11-30), ten
    // rounds 0.87-1.12.
    const rounds = Number(process.env.BENCH_ROUNDS) || (bytes > 1024 ** 3 ? 10 : 3);
    show(await benchUploadParts(bytes, rounds));
  }
  if (run.has("restore")) show(await restoreFigures(quick));
  if (run.has("pickup")) {
    await withPglite(async (db) => show(await benchPickup(db, "PGlite", quick ? 50 : 300)));
    await withPostgres(async (db) => show(await benchPickup(db, "PostgreSQL", quick ? 50 : 300)));
  }
  if (run.has("clips")) {
    process.stdout.write("motion clips: engine and content rule\n");
    for (const size of ["480p", "720p"] as const) show([await benchClip(size, quick ? 1 : 3)]);
    show([benchPrompt(quick ? 20 : 200)]);
  }
  if (run.has("cluster")) {
    process.stdout.write("several nodes: cold start, charges through two nodes, rate limits\n");
    await clusterSection(quick, (f) => show([f]));
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
