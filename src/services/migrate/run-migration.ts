/**
 * Copies a stopped embedded install (PGlite database, local files) into PostgreSQL (and S3).
 * The order makes a failed run safe to repeat:
 *   1. checks that write nothing: the source's schema, its ledger reconciled, the copy plan;
 *   2. the target migrated and refused unless empty;
 *   3. files uploaded (idempotent: a rerun overwrites the same keys);
 *   4. every table copied in ONE target transaction, sequences advanced, everything verified
 *      inside that transaction — any problem or crash rolls it back, leaving the target empty
 *      (only migrated), so the next run is not refused.
 * The source is only read.
 */
import { sql } from "kysely";
import type { BlobStore } from "../../storage/blob-store.js";
import { type AnyDb, readForeignKeys, readTables, type TableShape } from "./catalog.js";
import { buildCopyPlan, copyOrder } from "./copy-plan.js";
import { scanLocalStore, uploadObjects } from "./file-copy.js";
import {
  type FilesReport,
  MigrationRefusedError,
  type MigrationReport,
  type Problem,
} from "./report.js";
import {
  checkSourceSchema,
  nonEmptyTables,
  prepareTarget,
  refuseNonEmpty,
} from "./schema-checks.js";
import {
  advanceSequences,
  type CopyOptions,
  copyTable,
  DEFAULT_COPY_OPTIONS,
} from "./table-copy.js";
import {
  checkSequences,
  compareTables,
  compareWalletSums,
  digestTables,
  ledgerTotals,
  reconcileSide,
  type TableDigest,
} from "./verify.js";

/** Where the files go: left in place, or to an S3 bucket. */
export type FilesTarget =
  | { mode: "in_place"; dir: string }
  | { mode: "s3"; dir: string; bucket: string; store: BlobStore };

/** A step of the copy, for the progress output. */
export type Progress =
  | { step: "table"; table: string; rows: number }
  | { step: "files"; done: number; total: number }
  | { step: "verify" };

/** The source and target of a migration, and how to report progress. */
export interface MigrationInput {
  /** The embedded database, opened (and so locked) by the caller. */
  source: AnyDb;
  target: AnyDb;
  /** Shown in the report: the target URL without its password. */
  targetLabel: string;
  files: FilesTarget;
  dryRun: boolean;
  /** Every job kind's tables in registry order (composition reads them from the registry). */
  kindTables: readonly string[];
  copy?: Partial<CopyOptions>;
  onProgress?: (p: Progress) => void;
  /** Milliseconds, for the report's duration. */
  now?: () => number;
}

/** A verification problem inside the copy transaction: thrown to roll it back. */
class RollBack extends Error {
  constructor(readonly problems: Problem[]) {
    super("verification failed");
  }
}

/**
 * Runs the migration (or, with dryRun, only its checks and counts) and reports. Throws
 * MigrationRefusedError when the source or target is refused before anything is written.
 */
export async function runMigration(input: MigrationInput): Promise<MigrationReport> {
  const now = input.now ?? (() => performance.now());
  const started = now();
  const { plan, sourceDigests, report } = await checkSource(input);
  const scan = await scanLocalStore(input.files.dir);
  Object.assign(report.files, {
    objects: scan.objects.length,
    bytes: scan.bytes,
    skipped: scan.skipped,
    untyped: scan.objects.filter((o) => o.contentType === null).length,
  });
  if (input.dryRun) {
    await dryRunTarget(input, plan);
  } else {
    await prepareTarget(input.target, plan);
    if (input.files.mode === "s3") {
      report.problems.push(
        ...(await uploadObjects(scan.objects, input.files.store, {
          onObject: (done, total) => input.onProgress?.({ step: "files", done, total }),
        })),
      );
    }
    if (report.problems.length === 0) await copyAndVerify(input, plan, sourceDigests, report);
  }
  report.ok = report.problems.length === 0;
  report.seconds = Math.round(now() - started) / 1000;
  return report;
}

/**
 * Everything about the source, read before the target is touched: its schema, the copy plan,
 * every table counted and digested, the ledger reconciled (refused when it is not).
 */
async function checkSource(input: MigrationInput) {
  // Digests hash timestamps as text: both sides must print them in the same zone.
  await sql`SET TIME ZONE 'UTC'`.execute(input.source);
  await checkSourceSchema(input.source);
  const plan = buildCopyPlan(
    await readTables(input.source),
    await readForeignKeys(input.source),
    copyOrder(input.kindTables),
  );
  const sourceDigests = await digestTables(input.source, plan);
  const recon = await reconcileSide(input.source, "source");
  if (!recon.summary.ok) {
    throw new MigrationRefusedError(
      "source_drift",
      `The embedded ledger does not reconcile (${recon.summary.drift} problems, e.g. ${describe(recon.problems[0])}): correct it with \`kinora admin credit\` adjustments before migrating.`,
    );
  }
  const report: MigrationReport = {
    ok: true,
    dry_run: input.dryRun,
    target: input.targetLabel,
    tables: plan.map((t) => ({
      name: t.name,
      source_rows: sourceDigests.get(t.name)?.rows ?? 0,
      target_rows: null,
      content_match: null,
    })),
    rows: [...sourceDigests.values()].reduce((n, d) => n + d.rows, 0),
    ledger: await ledgerTotals(input.source),
    reconcile: { source: recon.summary, target: null },
    sequences: [],
    files: emptyFilesReport(input.files),
    seconds: 0,
    problems: [],
  };
  return { plan, sourceDigests, report };
}

function emptyFilesReport(files: FilesTarget): FilesReport {
  return {
    mode: files.mode,
    dir: files.dir,
    bucket: files.mode === "s3" ? files.bucket : null,
    objects: 0,
    bytes: 0,
    skipped: [],
    untyped: 0,
  };
}

/** A dry run writes nothing: it reads the target and, for S3, checks the bucket answers. */
async function dryRunTarget(input: MigrationInput, plan: TableShape[]): Promise<void> {
  const nonEmpty = await nonEmptyTables(
    input.target,
    plan.map((t) => t.name),
  );
  if (nonEmpty.length > 0) throw refuseNonEmpty(nonEmpty);
  if (input.files.mode === "s3") {
    // A HEAD of a key that cannot exist: credentials, endpoint and bucket all have to work.
    await input.files.store.head("kinora-migrate-dry-run/probe");
  }
}

async function copyAndVerify(
  input: MigrationInput,
  plan: TableShape[],
  sourceDigests: ReadonlyMap<string, TableDigest>,
  report: MigrationReport,
): Promise<void> {
  const opts: CopyOptions = {
    ...DEFAULT_COPY_OPTIONS,
    ...input.copy,
    onRows: (table, rows) => input.onProgress?.({ step: "table", table, rows }),
  };
  try {
    await input.target.transaction().execute(async (tx) => {
      await sql`SET LOCAL TIME ZONE 'UTC'`.execute(tx);
      // Nobody writes to these tables until the copy commits (reads still work).
      const names = sql.join(plan.map((t) => sql.id(t.name)));
      await sql`LOCK TABLE ${names} IN EXCLUSIVE MODE`.execute(tx);
      const raced = await nonEmptyTables(
        tx,
        plan.map((t) => t.name),
      );
      if (raced.length > 0) throw refuseNonEmpty(raced);
      for (const table of plan) await copyTable(input.source, tx, table, opts);
      const targetTables = await readTables(tx);
      report.sequences = await advanceSequences(input.source, tx, plan, targetTables);
      input.onProgress?.({ step: "verify" });
      const problems = await verifyInside(input.source, tx, plan, sourceDigests, report);
      problems.push(...(await checkSequences(tx, plan, targetTables)));
      if (problems.length > 0) throw new RollBack(problems);
    });
  } catch (err) {
    if (!(err instanceof RollBack)) throw err;
    report.problems.push(...err.problems);
  }
}

async function verifyInside(
  source: AnyDb,
  tx: AnyDb,
  plan: TableShape[],
  sourceDigests: ReadonlyMap<string, TableDigest>,
  report: MigrationReport,
): Promise<Problem[]> {
  const compared = compareTables(plan, sourceDigests, await digestTables(tx, plan));
  report.tables = compared.tables;
  const walletProblems = await compareWalletSums(source, tx);
  const recon = await reconcileSide(tx, "target");
  report.reconcile.target = recon.summary;
  return [...compared.problems, ...walletProblems, ...recon.problems];
}

function describe(p: Problem | undefined): string {
  return p ? `${p.subject}: ${p.detail}` : "unknown";
}
