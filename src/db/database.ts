/**
 * One query layer (Kysely) over two backends: embedded PGlite in DATA_DIR, or PostgreSQL via
 * DATABASE_URL. Everything above this file is backend-agnostic; the only differences handled
 * here are int8 parsing, LISTEN/NOTIFY plumbing and the data-dir lock PGlite lacks.
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect, PostgresDialect } from "kysely";
import pg from "pg";
import { acquireDirLock, type DirLock } from "./dir-lock.js";
import { readTemplate } from "./pglite-template.js";
import type { DB } from "./schema.js";

/** The database behind Kysely: embedded PGlite or a PostgreSQL server. */
export type Backend = "pglite" | "postgres";

/** An open database: the Kysely handle, LISTEN/NOTIFY and close, whichever backend. */
export interface Database {
  readonly db: Kysely<DB>;
  readonly backend: Backend;
  /** Subscribes to a NOTIFY channel; returns an unsubscribe function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** The driver underneath Kysely, for benchmarks that compare against plain SQL. */
  rawQuery(text: string, params: readonly unknown[]): Promise<unknown[]>;
  /** Statements in one transaction on the driver (the benchmarks' baseline of a charge). */
  rawTransaction(statements: readonly RawStatement[]): Promise<unknown[][]>;
  close(): Promise<void>;
}

/** One statement for the driver: SQL text with $n placeholders and their values. */
export interface RawStatement {
  text: string;
  params: readonly unknown[];
}

/** How to open the database: a PostgreSQL URL, else PGlite in a directory. */
export interface OpenOptions {
  /** postgres://… → PostgreSQL; otherwise PGlite. */
  databaseUrl?: string;
  /** PGlite data directory ("memory://" for an in-memory database, used by tests). */
  dataDir?: string;
  /** PostgreSQL schema to use (tests isolate each file in its own schema). */
  schema?: string;
  poolSize?: number;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** int8 arrives as a string from `pg`; every amount we store fits in a JS number. */
function parseInt8(value: string): number {
  return Number.parseInt(value, 10);
}

/** Opens PostgreSQL when a URL is given, else the embedded PGlite. */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.schema, opts.poolSize ?? 10);
  return openPglite(opts.dataDir ?? "memory://");
}

async function openPostgres(url: string, schema: string | undefined, poolSize: number) {
  const types = {
    getTypeParser: (oid: number, format?: "text" | "binary") => {
      if (oid === INT8_OID) return parseInt8;
      if (oid === NUMERIC_OID) return Number.parseFloat;
      return pg.types.getTypeParser(oid, format);
    },
  };
  const options = schema ? `-c search_path=${schema}` : undefined;
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types, options });
  // An idle client that loses its connection must not crash the process.
  pool.on("error", () => {});
  const client = await pool.connect();
  client.release();
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    backend: "postgres" as const,
    async rawQuery(text: string, params: readonly unknown[]) {
      return (await pool.query(text, [...params])).rows;
    },
    async rawTransaction(statements: readonly RawStatement[]) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const rows: unknown[][] = [];
        for (const s of statements) rows.push((await client.query(s.text, [...s.params])).rows);
        await client.query("COMMIT");
        return rows;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async listen(channel: string, onNotify: (payload: string) => void) {
      const listener = new pg.Client({ connectionString: url, types, options });
      listener.on("error", () => {});
      await listener.connect();
      listener.on("notification", (msg) => {
        if (msg.channel === channel) onNotify(msg.payload ?? "");
      });
      await listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return async () => {
        await listener.end().catch(() => {});
      };
    },
    async close() {
      await db.destroy();
    },
  };
}

async function openPglite(dataDir: string) {
  let lock: DirLock | undefined;
  let pgliteDir = dataDir;
  if (!dataDir.startsWith("memory://")) {
    mkdirSync(dataDir, { recursive: true });
    lock = acquireDirLock(dataDir);
    pgliteDir = path.join(dataDir, "pglite");
  }
  try {
    // A new database starts from the migrated template when the build made one (see
    // pglite-template.ts); an existing one is opened as it is.
    const isNew =
      pgliteDir.startsWith("memory://") || !existsSync(path.join(pgliteDir, "PG_VERSION"));
    const template = isNew ? readTemplate() : undefined;
    const pglite = await PGlite.create(pgliteDir, {
      parsers: { [INT8_OID]: parseInt8, [NUMERIC_OID]: Number.parseFloat },
      ...(template ? { loadDataDir: template } : {}),
    });
    const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }) });
    return {
      db,
      backend: "pglite" as const,
      async rawQuery(text: string, params: readonly unknown[]) {
        return (await pglite.query(text, [...params])).rows;
      },
      async rawTransaction(statements: readonly RawStatement[]) {
        return pglite.transaction(async (tx) => {
          const rows: unknown[][] = [];
          for (const s of statements) rows.push((await tx.query(s.text, [...s.params])).rows);
          return rows;
        });
      },
      async listen(channel: string, onNotify: (payload: string) => void) {
        const unsub = await pglite.listen(channel, onNotify);
        return async () => {
          await unsub();
        };
      },
      async close() {
        await db.destroy();
        lock?.release();
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}
