/**
 * `kinora admin migrate --to postgres://… [--files-to s3] [--dry-run] [--json]`: copies this
 * machine's embedded install (DATA_DIR's PGlite database, the local files) into PostgreSQL
 * (and S3). Unlike the other admin commands it is not an HTTP call: it reads the same
 * environment as `kinora serve` and opens DATA_DIR itself, taking its lock — so the server
 * must be stopped, and nothing changes while the copy runs. The work is in services/migrate.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import type { Database } from "../db/database.js";
import { recordOf } from "../domain/records.js";
import type { Progress } from "../services/migrate/run-migration.js";
import type { BlobStore } from "../storage/blob-store.js";
import { localFilesDir, s3StoreFrom } from "../storage/from-config.js";
import { formatReport, MIGRATE_EXIT, nextSteps, redactUrl } from "./migrate-output.js";

const MIGRATE_USAGE = `Usage: kinora admin migrate --to postgres://USER@HOST/DB [--files-to s3] [--dry-run] [--json]
  Copies this machine's embedded install (DATA_DIR) into an empty PostgreSQL database and,
  with --files-to s3, its files into the S3 bucket of S3_BUCKET/S3_*; then verifies both.
  Stop the server first. Reads DATA_DIR and STORAGE_DIR like \`kinora serve\`.
  --dry-run   check and count only; write nothing
  --json      print the report as JSON
Exit: 0 done, 1 usage/config/server running/unreachable, 2 target not empty, 3 a check failed.`;

interface MigrateIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIo: MigrateIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

/** A failure explained to the operator, with its exit code. */
class MigrateStop extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly refused?: string,
  ) {
    super(message);
  }
}

interface Args {
  to: string;
  filesToS3: boolean;
  dryRun: boolean;
  json: boolean;
}

function parse(argv: string[]): Args {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        to: { type: "string" },
        "files-to": { type: "string" },
        "dry-run": { type: "boolean" },
        json: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    // parseArgs throws a TypeError naming the option it refused.
    const why = err instanceof Error ? err.message : String(err);
    throw new MigrateStop(`${why}\n${MIGRATE_USAGE}`, MIGRATE_EXIT.error);
  }
  const to = values.to;
  if (typeof to !== "string" || !/^postgres(ql)?:\/\//.test(to)) {
    throw new MigrateStop(
      `--to must be a postgres:// URL of an empty database.\n${MIGRATE_USAGE}`,
      MIGRATE_EXIT.error,
    );
  }
  const filesTo = values["files-to"];
  if (filesTo !== undefined && filesTo !== "s3") {
    throw new MigrateStop(`--files-to takes only "s3".\n${MIGRATE_USAGE}`, MIGRATE_EXIT.error);
  }
  return {
    to,
    filesToS3: filesTo === "s3",
    dryRun: values["dry-run"] === true,
    json: values.json === true,
  };
}

/**
 * Every job kind's tables in registry order; composition reads them from the registry (lazily:
 * only migrate needs the kinds).
 */
export type KindTables = () => Promise<readonly string[]>;

/** Runs the command; returns its exit code. */
export async function runMigrateCommand(
  argv: string[],
  kindTables: KindTables,
  env: NodeJS.ProcessEnv = process.env,
  io: MigrateIo = processIo,
): Promise<number> {
  let json = argv.includes("--json");
  try {
    const args = parse(argv);
    json = args.json;
    return await migrateWith(args, env, io, kindTables);
  } catch (err) {
    const stop = explain(err);
    if (json) {
      io.stdout(
        `${JSON.stringify({ ok: false, refused: stop.refused ?? null, error: stop.message }, null, 2)}\n`,
      );
    }
    io.stderr(`kinora admin migrate: ${stop.message}\n`);
    return stop.exitCode;
  }
}

/** The operator-facing form of a failure, with its exit code. */
function explain(err: unknown): MigrateStop {
  if (err instanceof MigrateStop) return err;
  // Told apart by name: the failures come from config, the lock and the copy, not one module.
  const e = recordOf(err);
  const message = err instanceof Error ? err.message : String(err);
  switch (e.name) {
    case "ConfigError":
    case "CopyPlanError":
      return new MigrateStop(message, MIGRATE_EXIT.error);
    case "DataDirLockedError":
      return new MigrateStop(
        `the server is still running (pid ${e.pid} holds DATA_DIR's lock): stop it first — migrate copies a stopped install so nothing changes underneath it.`,
        MIGRATE_EXIT.error,
      );
    case "MigrationRefusedError": {
      const refusal = typeof e.code === "string" ? e.code : undefined;
      const code = refusal === "source_drift" ? MIGRATE_EXIT.mismatch : MIGRATE_EXIT.refused;
      return new MigrateStop(message, code, refusal);
    }
    default:
      // A lost connection, a permission, a full disk: the copy's transaction was rolled back.
      return new MigrateStop(
        `${message} — no rows were committed to the target, and the source is unchanged.`,
        MIGRATE_EXIT.error,
      );
  }
}

async function migrateWith(
  args: Args,
  env: NodeJS.ProcessEnv,
  io: MigrateIo,
  kindTables: KindTables,
): Promise<number> {
  const config = loadConfig(env);
  if (config.databaseUrl) {
    throw new MigrateStop(
      "DATABASE_URL is set, so this environment does not use the embedded database. migrate copies DATA_DIR's database: unset DATABASE_URL and pass the target as --to.",
      MIGRATE_EXIT.error,
    );
  }
  if (!existsSync(path.join(config.dataDir, "pglite", "PG_VERSION"))) {
    throw new MigrateStop(
      `there is no embedded database in DATA_DIR (${config.dataDir}): set DATA_DIR to the install to migrate.`,
      MIGRATE_EXIT.error,
    );
  }
  const filesDir = localFilesDir(config);
  const store = args.filesToS3 ? await s3Target(env) : undefined;
  const [{ openDatabase }, { runMigration }] = await Promise.all([
    import("../db/database.js"),
    import("../services/migrate/run-migration.js"),
  ]);
  const source = await openDatabase({ dataDir: config.dataDir });
  let target: Database | undefined;
  try {
    target = await openDatabase({ databaseUrl: args.to, poolSize: 2 }).catch((err: Error) => {
      throw new MigrateStop(
        `could not connect to ${redactUrl(args.to)}: ${err.message}`,
        MIGRATE_EXIT.error,
      );
    });
    const report = await runMigration({
      source: source.db,
      target: target.db,
      targetLabel: redactUrl(args.to),
      files: store
        ? { mode: "s3", dir: filesDir, bucket: store.bucket, store: store.store }
        : { mode: "in_place", dir: filesDir },
      dryRun: args.dryRun,
      kindTables: await kindTables(),
      onProgress: progressPrinter(io),
    });
    if (args.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    else io.stdout(formatReport(report, config.dataDir));
    if (report.ok && !report.dry_run && !args.json) {
      io.stdout(nextSteps(config.dataDir, args.filesToS3));
    }
    return report.ok ? MIGRATE_EXIT.ok : MIGRATE_EXIT.mismatch;
  } finally {
    await target?.close();
    await source.close();
  }
}

/** The S3 store the cluster will use: the S3_* settings parsed as STORAGE=s3 would. */
async function s3Target(env: NodeJS.ProcessEnv): Promise<{ bucket: string; store: BlobStore }> {
  if (!env.S3_BUCKET) {
    throw new MigrateStop(
      "--files-to s3 needs S3_BUCKET (and S3_REGION, S3_ENDPOINT, S3_ACCESS_KEY_ID… as for STORAGE=s3).",
      MIGRATE_EXIT.error,
    );
  }
  const s = loadConfig({ ...env, STORAGE: "s3" }).storage;
  if (s.kind !== "s3") throw new Error("unreachable: STORAGE=s3 parsed as local");
  return { bucket: s.bucket, store: await s3StoreFrom(s) };
}

/** A line now and then on stderr, so a long copy shows it is moving (stdout is the report). */
function progressPrinter(io: MigrateIo) {
  return (p: Progress) => {
    if (p.step === "table" && p.rows % 50_000 === 0) {
      io.stderr(`  ${p.table}: ${p.rows} rows…\n`);
    } else if (p.step === "files" && (p.done % 100 === 0 || p.done === p.total)) {
      io.stderr(`  files: ${p.done} of ${p.total} uploaded\n`);
    } else if (p.step === "verify") {
      io.stderr("  verifying…\n");
    }
  };
}
