/**
 * `kinora admin migrate` end to end: an embedded install made through the API, copied into a
 * fresh PostgreSQL database (and, in one test, its files into s3rver), checked row for row,
 * served again from the target with the same keys and session, and refused where it must be:
 * a non-empty target, a drifted source, a DATA_DIR still held by a running server.
 */

import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { sql } from "kysely";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMigrateCommand } from "../../src/cli/migrate.js";
import { type Database, openDatabase } from "../../src/db/database.js";
import { migrate } from "../../src/db/migrate.js";
import { consoleFeature } from "../../src/features/console.js";
import { JOB_KINDS } from "../../src/job-kinds.js";
import { kindTables } from "../../src/kinds/kind.js";
import { credit } from "../../src/services/ledger.js";
import { runMigration } from "../../src/services/migrate/run-migration.js";
import { reconcile } from "../../src/services/reconcile.js";
import { createSigner } from "../../src/signing.js";
import { createS3BlobStore } from "../../src/storage/s3-store.js";
import { createTestApp } from "../app.js";
import { cliCommand } from "../cli/harness.js";
import { startSigV4Proxy } from "../fakes/sigv4-proxy.js";
import { buildEmbeddedInstall, type EmbeddedInstall, SIGNING_SECRET } from "./embedded-install.js";
import { ADMIN_URL, type FreshDatabase, freshDatabase, postgresReachable } from "./postgres.js";

const pgUp = await postgresReachable();
if (!pgUp) {
  console.warn(`migrate tests skipped: PostgreSQL is unreachable at ${ADMIN_URL}`);
}

let install: EmbeddedInstall;
const databases: FreshDatabase[] = [];

async function target(): Promise<FreshDatabase> {
  const db = await freshDatabase();
  databases.push(db);
  return db;
}

/** Runs the command in-process with only the given environment; captures what it prints. */
async function migrateCli(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runMigrateCommand(
    args,
    async () => kindTables(JOB_KINDS),
    { DATA_DIR: install.dataDir, LOG_LEVEL: "silent", ...env },
    {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
    },
  );
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

async function withDb<T>(url: string, run: (d: Database) => Promise<T>): Promise<T> {
  const d = await openDatabase({ databaseUrl: url, poolSize: 2 });
  try {
    return await run(d);
  } finally {
    await d.close();
  }
}

async function count(d: Database, table: string): Promise<number> {
  const r = await sql<{ n: string }>`SELECT count(*)::text AS n FROM ${sql.id(table)}`.execute(
    d.db,
  );
  return Number(r.rows[0]?.n);
}

describe.skipIf(!pgUp)("kinora admin migrate", () => {
  beforeAll(async () => {
    install = await buildEmbeddedInstall();
  });
  afterAll(async () => {
    for (const d of databases) await d.drop();
    install?.remove();
  });

  it("copies the install into an empty database, verifies it, and the target serves it", async () => {
    const db = await target();
    const run = await migrateCli(["--to", db.url, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const report = run.json();
    expect(report).toMatchObject({ ok: true, dry_run: false, problems: [] });
    const rows = Object.fromEntries(
      report.tables.map((t: { name: string; source_rows: number }) => [t.name, t.source_rows]),
    );
    expect(rows).toMatchObject({
      wallets: 2,
      agent_keys: 1,
      restore_jobs: 2,
      clips: 1,
      checkouts: 1,
      oauth_clients: 1,
      web_sessions: 1,
      idempotency_keys: 1,
    });
    // 2 top-ups + checkout + restore charge + cancelled charge and its refund + clip + 12.
    expect(rows.ledger_entries).toBe(19);
    for (const t of report.tables) {
      expect(t.target_rows, t.name).toBe(t.source_rows);
      expect(t.content_match, t.name).toBe(true);
    }
    expect(report.reconcile.source.ok).toBe(true);
    expect(report.reconcile.target).toMatchObject({ ok: true, entries_checked: 19, drift: 0 });
    expect(report.ledger.entries_cents).toBe(report.ledger.balances_cents);
    expect(report.files).toMatchObject({ mode: "in_place", objects: 2, bucket: null });
    expect(report.files.skipped).toEqual(["restore/rj_unfinished/.input.0a1b2c.part"]);
    expect(report.sequences).toEqual([{ sequence: "ledger_entries.id", value: "19" }]);

    await withDb(db.url, async (d) => {
      expect(await count(d, "ledger_entries")).toBe(19);
      // The sequence is past the copied ids: a new entry gets the next one.
      await credit(d.db, {
        walletId: install.owner.walletId,
        amountCents: 5,
        kind: "adjustment",
        reference: "after-migrate",
        reason: "first entry on PostgreSQL",
      });
      const last = await sql<{ id: number }>`SELECT max(id) AS id FROM ledger_entries`.execute(
        d.db,
      );
      expect(Number(last.rows[0]?.id)).toBe(20);
      expect((await reconcile(d.db)).ok).toBe(true);
    });
    await expectTargetServes(db.url);

    const again = await migrateCli(["--to", db.url, "--json"]);
    expect(again.code).toBe(2);
    expect(again.json()).toMatchObject({ ok: false, refused: "target_not_empty" });
    expect(again.stderr).toMatch(/not empty \(rows in wallets, agent_keys, ledger_entries/);
  });

  it("pages through every table in small batches with the same result", async () => {
    const db = await target();
    const source = await openDatabase({ dataDir: install.dataDir });
    try {
      await withDb(db.url, async (d) => {
        const report = await runMigration({
          source: source.db,
          target: d.db,
          targetLabel: "test",
          files: { mode: "in_place", dir: path.join(install.dataDir, "files") },
          dryRun: false,
          kindTables: kindTables(JOB_KINDS),
          copy: { batchRows: 2, maxBatchChars: 300 },
        });
        expect(report.problems).toEqual([]);
        expect(report.tables.every((t) => t.content_match)).toBe(true);
      });
    } finally {
      await source.close();
    }
  });

  it("--dry-run checks and counts without writing to the target", async () => {
    const db = await target();
    const run = await migrateCli(["--to", db.url, "--dry-run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Dry run \(nothing written\):/);
    expect(run.stdout).toMatch(/ledger_entries\s+19\n/);
    expect(run.stdout).toMatch(/files: 2 objects .* left in /);
    await withDb(db.url, async (d) => {
      const r = await sql<{ t: string | null }>`SELECT to_regclass('wallets')::text AS t`.execute(
        d.db,
      );
      expect(r.rows[0]?.t).toBeNull();
    });
  });

  it("--files-to s3 uploads every object under its key with its content type", async () => {
    const db = await target();
    const dir = mkdtempSync(path.join(tmpdir(), "kinora-mig-s3-"));
    const s3rver = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: "kinora-cluster" }],
    });
    const { port } = (await s3rver.run()) as AddressInfo;
    const proxy = await startSigV4Proxy({ targetPort: port, credentials: { S3RVER: "S3RVER" } });
    const s3env = {
      S3_BUCKET: "kinora-cluster",
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_FORCE_PATH_STYLE: "true",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
    };
    const client = new S3Client({
      region: "us-east-1",
      endpoint: s3env.S3_ENDPOINT,
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    });
    const keys = async () =>
      ((await client.send(new ListObjectsV2Command({ Bucket: "kinora-cluster" }))).Contents ?? [])
        .map((o) => o.Key)
        .sort();
    try {
      const dry = await migrateCli(["--to", db.url, "--files-to", "s3", "--dry-run"], s3env);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(/files: 2 objects \(.*\) would be uploaded to s3:\/\/kinora/);
      expect(await keys()).toEqual([]);

      const run = await migrateCli(["--to", db.url, "--files-to", "s3"], s3env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/files: 2 objects \(.*\) uploaded to s3:\/\/kinora-cluster/);
      expect(run.stdout).toMatch(/STORAGE=s3/);

      expect(await keys()).toEqual([...install.objects.keys()].sort());
      // Read back as the cluster's callers will: presigned URLs, checked by the SigV4 proxy.
      const store = createS3BlobStore({
        bucket: "kinora-cluster",
        region: "us-east-1",
        endpoint: s3env.S3_ENDPOINT,
        publicEndpoint: proxy.url,
        forcePathStyle: true,
        accessKeyId: "S3RVER",
        secretAccessKey: "S3RVER",
      });
      for (const [key, want] of install.objects) {
        const res = await fetch(await store.presignDownload(key, { expiresInSec: 60 }));
        expect(res.status, key).toBe(200);
        expect(res.headers.get("content-type"), key).toBe(want.contentType);
        expect(Buffer.from(await res.arrayBuffer()).equals(want.bytes), key).toBe(true);
      }
      expect(proxy.refusals).toEqual([]);
    } finally {
      await proxy.close();
      await s3rver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("rolls the whole copy back when a row arrives changed, so a rerun is not refused", async () => {
    const db = await target();
    // Negative control: a target that alters one column on insert must fail verification.
    await withDb(db.url, async (d) => {
      await migrate(d.db);
      await sql`CREATE FUNCTION tamper() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN NEW.label := NEW.label || '!'; RETURN NEW; END $$`.execute(d.db);
      await sql`CREATE TRIGGER tamper BEFORE INSERT ON agent_keys
        FOR EACH ROW EXECUTE FUNCTION tamper()`.execute(d.db);
    });
    const run = await migrateCli(["--to", db.url, "--json"]);
    expect(run.code).toBe(3);
    expect(run.json()).toMatchObject({
      ok: false,
      problems: [{ check: "content", subject: "agent_keys", detail: "row contents differ" }],
    });
    await withDb(db.url, async (d) => {
      expect(await count(d, "wallets")).toBe(0);
      expect(await count(d, "ledger_entries")).toBe(0);
      await sql`DROP TRIGGER tamper ON agent_keys`.execute(d.db);
    });
    const rerun = await migrateCli(["--to", db.url]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(/^Migrated /);
  });

  it("refuses while the server holds DATA_DIR, and says so", async () => {
    const server = await openDatabase({ dataDir: install.dataDir });
    try {
      // A separate process, as an operator would run it next to the running server.
      const [node, args] = cliCommand([
        "admin",
        "migrate",
        "--to",
        "postgres://nobody@127.0.0.1:1/never",
      ]);
      const child = spawn(node, args, {
        env: { PATH: process.env.PATH, DATA_DIR: install.dataDir },
      });
      let stderr = "";
      child.stderr.on("data", (b) => {
        stderr += b;
      });
      const code = await new Promise((resolve) => child.on("close", resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(/server is still running \(pid \d+ holds DATA_DIR's lock\)/);
    } finally {
      await server.close();
    }
  });

  it("refuses a source whose ledger drifted, before touching the target", async () => {
    const copy = mkdtempSync(path.join(tmpdir(), "kinora-drift-"));
    cpSync(install.dataDir, copy, { recursive: true });
    try {
      const d = await openDatabase({ dataDir: copy });
      await sql`UPDATE wallets SET balance_cents = balance_cents + 1
                WHERE id = ${install.owner.walletId}`.execute(d.db);
      await d.close();
      const db = await target();
      const run = await migrateCli(["--to", db.url, "--json"], { DATA_DIR: copy });
      expect(run.code).toBe(3);
      expect(run.json()).toMatchObject({ ok: false, refused: "source_drift" });
      expect(run.stderr).toMatch(/does not reconcile \(1 problems/);
      await withDb(db.url, async (t) => {
        const r = await sql<{ t: string | null }>`SELECT to_regclass('wallets')::text AS t`.execute(
          t.db,
        );
        expect(r.rows[0]?.t).toBeNull();
      });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

/** The copied install, served from PostgreSQL: the same wallet key, balance and console session. */
async function expectTargetServes(url: string): Promise<void> {
  const t = await createTestApp({
    database: async () => {
      const d = await openDatabase({ databaseUrl: url, poolSize: 2 });
      return { ...d, cleanup: () => d.close() };
    },
    features: [consoleFeature()],
    platform: (p) => ({ ...p, signer: createSigner(SIGNING_SECRET) }),
  });
  try {
    const wallet = await t.call("GET", "/wallet", { key: install.owner.key });
    expect(wallet.status).toBe(200);
    const agent = await t.call("GET", "/wallet", { key: install.agent.key });
    expect(agent.body.wallet.agent_key.id).toBe(install.agent.id);
    const page = await t.app.request("/console", { headers: { cookie: install.sessionCookie } });
    expect(await page.text()).toContain('id="balance"');
  } finally {
    await t.close();
  }
}
