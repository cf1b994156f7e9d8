import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobBody, makeVideo } from "../test/restore/helpers.js";
import { type ServerDatabase, serverDatabase } from "../test/server-db.js";
import { ConfigError, loadConfig } from "./config.js";
import { openDatabase } from "./db/database.js";
import { startServer } from "./server.js";

const root = mkdtempSync(path.join(tmpdir(), "kinora-server-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("kinora serve", () => {
  it("checks the whole configuration before it touches the data directory", async () => {
    const dataDir = path.join(root, "never-created");
    const config = loadConfig({ DATA_DIR: dataDir, X402_ENABLED: "true", LOG_LEVEL: "silent" });
    await expect(startServer(config)).rejects.toThrow(ConfigError);
    await expect(startServer(config)).rejects.toThrow(/X402_PAY_TO: is required/);
    expect(existsSync(dataDir)).toBe(false);
    expect(() => loadConfig({ DATA_DIR: dataDir, CLIP_ENGINE: "cog" })).toThrow(ConfigError);
    expect(existsSync(dataDir)).toBe(false);
  });
});

let db: ServerDatabase;

describe("SIGTERM", () => {
  const ADMIN = "server-test-admin-token-0123";
  let video: { path: string; sizeBytes: number };
  beforeAll(async () => {
    db = await serverDatabase();
    video = await makeVideo(root, 6, "six.mp4");
  });
  afterAll(async () => {
    await db.drop();
  });

  const config = (dataDir: string, graceMs: number) =>
    loadConfig({
      ...db.env,
      DATA_DIR: dataDir,
      PORT: "0",
      LOG_LEVEL: process.env.TEST_LOG ?? "silent",
      ADMIN_TOKEN: ADMIN,
      SHUTDOWN_GRACE_MS: String(graceMs),
      JOB_LEASE_MS: "5000",
    });

  async function startedJob(url: string) {
    const call = async (method: string, p: string, body?: unknown, key?: string) => {
      const res = await fetch(`${url}${p}`, {
        method,
        headers: {
          "content-type": "application/json",
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
      return (await res.json()) as Record<string, any>;
    };
    const wallet = await call("POST", "/wallet", {});
    await fetch(`${url}/admin/wallets/${wallet.wallet.wallet_id}/credit`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ amount_cents: 1000, reason: "test" }),
    });
    const body = jobBody(video, { duration_sec: 6 });
    const created = await call("POST", "/cloud/jobs", body, wallet.key);
    const put = await fetch(created.upload_url, {
      method: "PUT",
      headers: created.upload_headers,
      body: readFileSync(video.path),
    });
    expect(put.status).toBe(200);
    await call("POST", `/cloud/jobs/${created.job.id}/start`, {}, wallet.key);
    return created.job.id as string;
  }

  const job = async (url: string, id: string) =>
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
    (await (await fetch(`${url}/cloud/jobs/${id}`)).json()).job as Record<string, any>;

  it("keeps serving while the running job finishes: /healthz answers 503, the job ends done", async () => {
    const dataDir = mkdtempSync(path.join(root, "drain-"));
    const server = await startServer(config(dataDir, 60_000));
    const id = await startedJob(server.url);
    await until(async () => ((await job(server.url, id)).progress ?? 0) > 0);
    const closed = server.close();
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    // The in-process worker reaches this server's own URLs to store its result, so the job
    // ends done on its first attempt before the listener closes.
    await closed;
    expect(await jobRow(dataDir, id)).toEqual({ attempts: 1, status: "done" });
  });

  it("hands a job interrupted by the grace running out back to the queue without an attempt", async () => {
    const dataDir = mkdtempSync(path.join(root, "release-"));
    const first = await startServer(config(dataDir, 300));
    const id = await startedJob(first.url);
    await until(async () => ((await job(first.url, id)).progress ?? 0) > 0);
    await first.close();
    const second = await startServer(config(dataDir, 60_000));
    await until(async () => (await job(second.url, id)).status === "done", 60_000);
    await second.close();
    const row = await jobRow(dataDir, id);
    expect(row).toEqual({ attempts: 1, status: "done" });
  });
});

/** The job's row, read straight from the (closed) server's database. */
async function jobRow(dataDir: string, id: string) {
  const database = await openDatabase({ databaseUrl: db.env.DATABASE_URL, dataDir });
  try {
    return await database.db
      .selectFrom("restore_jobs")
      .select(["attempts", "status"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
  } finally {
    await database.close();
  }
}

async function until(check: () => Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("timed out");
}
