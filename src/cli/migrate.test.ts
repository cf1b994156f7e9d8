import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { JOB_KINDS } from "../job-kinds.js";
import { kindTables } from "../kinds/kind.js";
import { runAdminCommand } from "./admin.js";
import { runMigrateCommand } from "./migrate.js";

const root = mkdtempSync(path.join(tmpdir(), "kinora-migrate-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TO = "postgres://kinora@127.0.0.1:1/kinora";

async function run(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runMigrateCommand(args, async () => kindTables(JOB_KINDS), env, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}

/** A DATA_DIR that looks like an install (the command checks before opening anything). */
function fakeInstall(): string {
  const dir = mkdtempSync(path.join(root, "data-"));
  mkdirSync(path.join(dir, "pglite"));
  writeFileSync(path.join(dir, "pglite", "PG_VERSION"), "18\n");
  return dir;
}

describe("kinora admin migrate: refusals before anything is opened", () => {
  it("needs --to with a postgres:// URL, and knows only --files-to s3", async () => {
    for (const args of [[], ["--to", "mysql://x/y"], ["--to", TO, "--files-to", "gcs"]]) {
      const r = await run(args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(/Usage: kinora admin migrate --to postgres:/);
    }
    const unknown = await run(["--to", TO, "--yes"]);
    expect(unknown.stderr).toMatch(/Unknown option '--yes'/);
  });

  it("refuses when DATABASE_URL says this environment is not the embedded one", async () => {
    const r = await run(["--to", TO], { DATABASE_URL: TO, DATA_DIR: fakeInstall() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/DATABASE_URL is set/);
  });

  it("refuses a DATA_DIR without an embedded database, and creates none", async () => {
    const empty = path.join(root, "no-install");
    const r = await run(["--to", TO, "--json"], { DATA_DIR: empty });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, refused: null });
    expect(r.stderr).toMatch(/no embedded database in DATA_DIR/);
    expect(existsSync(empty)).toBe(false);
  });

  it("needs S3_BUCKET for --files-to s3", async () => {
    const r = await run(["--to", TO, "--files-to", "s3"], { DATA_DIR: fakeInstall() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--files-to s3 needs S3_BUCKET/);
  });

  it("is dispatched by `kinora admin` without an admin token", async () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      expect(await runAdminCommand(["migrate"], async () => kindTables(JOB_KINDS))).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect(written.join("")).toMatch(/Usage: kinora admin migrate/);
    expect(written.join("")).not.toMatch(/ADMIN_TOKEN/);
  });
});
