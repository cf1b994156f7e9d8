/**
 * The cluster, proven: two `kinora serve` processes (WORKERS=0) and one remote `kinora worker`
 * on one fresh PostgreSQL database and s3rver behind a SigV4 check. Restores and clips are
 * created, uploaded, started and read alternately through both nodes; one API node (the one the
 * worker talks to) and then the worker are SIGKILLed mid-job and restarted. Every job must end
 * done, or failed and refunded exactly once; the ledger must reconcile; and the rate limit on
 * quotes must count requests to both nodes against one shared number.
 *
 * PostgreSQL only: PGlite is one process by design (the data directory is locked).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeImage } from "../clips/helpers.js";
import { type SigV4Proxy, startSigV4Proxy } from "../fakes/sigv4-proxy.js";
import { makeVideo } from "../restore/helpers.js";
import { type ServerDatabase, serverDatabase } from "../server-db.js";
import { type Api, api, type Job, waitForTerminal } from "./api.js";
import { freePort, type KinoraProcess, killAll, spawnKinora, startServe } from "./nodes.js";

const onPostgres = Boolean(process.env.DATABASE_URL);
if (!onPostgres) console.warn("cluster test skipped: it needs DATABASE_URL (PostgreSQL)");
const ADMIN_TOKEN = "cluster-admin-token-0123456789";
const WORKER_TOKEN = "cluster-worker-token-0123456789";
const QUOTES_PER_MIN = 4;

const dir = mkdtempSync(path.join(tmpdir(), "kinora-cluster-"));
let database: ServerDatabase | undefined;
let s3: S3rver | undefined;
let proxy: SigV4Proxy | undefined;
let nodeEnv: Record<string, string> = {};
let workerEnv: Record<string, string> = {};
const nodes: (KinoraProcess & { url: string })[] = [];
const ports: number[] = [];
let worker: KinoraProcess;

afterAll(async () => {
  await killAll();
  await proxy?.close();
  await s3?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Node i on its fixed port (a restart reuses it, as behind a load balancer). */
async function startNode(i: number) {
  nodes[i] = await startServe(
    { ...nodeEnv, DATA_DIR: path.join(dir, `node${i}`) },
    ports[i] as number,
  );
  return nodes[i];
}

async function startWorker() {
  worker = spawnKinora(
    ["worker", "--server", nodes[0]?.url as string, "--concurrency", "1"],
    workerEnv,
  );
  await worker.waitFor(/kinora worker started/);
}

beforeAll(async () => {
  if (!onPostgres) return;
  database = await serverDatabase();
  s3 = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: path.join(dir, "s3"),
    configureBuckets: [{ name: "kinora-cluster" }],
  });
  const { port: s3Port } = (await s3.run()) as AddressInfo;
  proxy = await startSigV4Proxy({ targetPort: s3Port, credentials: { S3RVER: "S3RVER" } });
  const common = {
    LOG_LEVEL: "info",
    SIGNING_SECRET: "cluster-signing-secret-0123456789abcdef",
    WORKER_TOKEN,
    JOB_LEASE_MS: "5000",
  };
  nodeEnv = {
    ...common,
    ...database.env,
    ADMIN_TOKEN,
    WORKERS: "0",
    STORAGE: "s3",
    S3_BUCKET: "kinora-cluster",
    // The nodes reach s3rver directly; every presigned URL (client uploads, the worker's
    // downloads and result uploads) goes through the SigV4 check.
    S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
    S3_PUBLIC_ENDPOINT: proxy.url,
    S3_FORCE_PATH_STYLE: "true",
    S3_ACCESS_KEY_ID: "S3RVER",
    S3_SECRET_ACCESS_KEY: "S3RVER",
    RATE_LIMITS: "on",
    RATE_LIMIT_QUOTE_PER_MIN: String(QUOTES_PER_MIN),
  };
  // The worker gets no database or storage credentials: only the server URL and its token.
  workerEnv = { ...common, DATA_DIR: path.join(dir, "worker"), SCRATCH_DIR: path.join(dir, "w") };
  ports.push(await freePort(), await freePort());
  await startNode(0); // first alone: it migrates the fresh database and builds dist/ if stale
  await Promise.all([startNode(1), startWorker()]);
});

/** Through node `i % 2`: requests alternate between the two API nodes. */
const via = (i: number): Api => api(nodes[i % 2]?.url as string);

const JOB_STARTED = /"msg":"job started"[^\n]*"job_id":"([^"]+)"/;

/** A wallet made through node 0 and credited by the operator through node 1. */
async function fundedWallet(cents: number) {
  const wallet = await via(0).post("/wallet", {});
  expect(wallet.status).toBe(200);
  const walletId = wallet.body.wallet.wallet_id as string;
  const credit = await via(1).post(
    `/admin/wallets/${walletId}/credit`,
    { amount_cents: cents, reason: "cluster test funds" },
    ADMIN_TOKEN,
  );
  expect(credit.status).toBe(200);
  return { key: wallet.body.key as string, walletId };
}

/** Three restores and three clips, each created on one node and started on the other, then a
 * restore of a file that is no video (the worker fails it for good: it must be refunded once). */
async function submitJobs(key: string): Promise<Job[]> {
  const video = await makeVideo(dir, 3);
  const junk = path.join(dir, "junk.mp4");
  writeFileSync(junk, new Uint8Array(4096).fill(7));
  const jobs: Job[] = [];
  for (let i = 0; i < 6; i++) {
    jobs.push(
      i % 2 === 0
        ? await via(i).restore(key, video.path, 3, via(i + 1))
        : await via(i).clip(key, await makeImage(480, 360, i * 40), via(i + 1)),
    );
  }
  jobs.push(await via(0).restore(key, junk, 2, via(1)));
  return jobs;
}

/** The wallet's job entries, and how many attempts `victim` has used, read from the database. */
async function readLedger(walletId: string, victim: string) {
  const client = new pg.Client({ connectionString: database?.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ job_id: string; kind: string; amount: string }>(
      `SELECT job_id, kind, amount_cents::text AS amount FROM ledger_entries
       WHERE wallet_id = $1 AND job_id IS NOT NULL ORDER BY id`,
      [walletId],
    );
    const table = victim.startsWith("clip_") ? "clips" : "restore_jobs";
    const r = await client.query(`SELECT attempts FROM ${table} WHERE id = $1`, [victim]);
    return { entries: rows, victimAttempts: Number(r.rows[0]?.attempts) };
  } finally {
    await client.end();
  }
}

describe.skipIf(!onPostgres)(
  "two API nodes and a remote worker (needs DATABASE_URL: PGlite is one process by design)",
  () => {
    it("counts one rate limit across both nodes: the N+1th quote is refused wherever it lands", async () => {
      const quote = { duration_sec: 60, quality: "faithful" };
      for (let tries = 0; ; tries++) {
        const window = Math.floor(Date.now() / 60_000);
        const statuses: number[] = [];
        for (let i = 0; i <= QUOTES_PER_MIN; i++) {
          statuses.push((await via(i).post("/cloud/quote", quote)).status);
        }
        // A minute boundary inside the burst starts a new window: only a burst in one counts.
        if (Math.floor(Date.now() / 60_000) !== window && tries < 2) continue;
        expect(statuses).toEqual([...Array(QUOTES_PER_MIN).fill(200), 429]);
        const again = await via(1).post("/cloud/quote", quote);
        expect(again.status).toBe(429);
        expect(again.headers.get("retry-after")).toMatch(/^\d+$/);
        break;
      }
    });

    it("ends every job done or refunded once through a node crash and a worker crash", async () => {
      const { key, walletId } = await fundedWallet(100_000);
      const jobs = await submitJobs(key);

      // Crash 1: SIGKILL the node the worker talks to while the worker runs a job.
      let mark = worker.output().length;
      await worker.waitFor(JOB_STARTED, mark);
      await nodes[0]?.kill();
      await startNode(0);
      // Crash 2: SIGKILL the worker (and its ffmpeg) in the middle of its next job.
      mark = worker.output().length;
      const victim = (await worker.waitFor(JOB_STARTED, mark))[1] as string;
      await worker.kill();
      await startWorker();

      const final = await waitForTerminal(jobs, key, via, 90_000);
      for (const job of final) {
        expect(["done", "failed"], `${job.id} ${job.status} ${job.error}`).toContain(job.status);
      }
      expect(final.at(-1)?.status).toBe("failed");
      expect(final.filter((j) => j.status === "done")).toHaveLength(6);
      for (const job of final.filter((j) => j.status === "done")) {
        const res = await fetch(job.url as string);
        expect(res.status, job.id).toBe(200);
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
      }
      const ledger = await readLedger(walletId, victim);
      let spent = 0;
      for (const job of final) {
        const charges = ledger.entries.filter((r) => r.job_id === job.id && r.kind === "charge");
        const refunds = ledger.entries.filter((r) => r.job_id === job.id && r.kind === "refund");
        expect(charges, job.id).toHaveLength(1);
        expect(refunds, job.id).toHaveLength(job.status === "done" ? 0 : 1);
        const charged = -Number(charges[0]?.amount);
        expect(charged).toBeGreaterThan(0);
        if (refunds[0]) expect(Number(refunds[0].amount)).toBe(charged);
        else spent += charged;
      }
      expect((await via(1).get("/wallet", key)).body.wallet.balance_cents).toBe(100_000 - spent);
      // The worker crash hit a running attempt: its job was claimed again. (The job running
      // during the node crash may finish on its first attempt: its reports wait out the restart.)
      expect(ledger.victimAttempts, victim).toBeGreaterThanOrEqual(2);
      for (const i of [0, 1]) {
        const report = await via(i).get("/admin/reconcile", ADMIN_TOKEN);
        expect(report.status).toBe(200);
        expect(report.body).toMatchObject({ ok: true, drift: [] });
      }
      expect(proxy?.refusals).toEqual([]);
      // 30–40 s measured on a busy shared 2-core machine; the bound leaves room for worse.
    }, 150_000);
  },
);
