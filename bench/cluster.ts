import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  freePort,
  type KinoraProcess,
  spawnKinora,
  spawnNode,
  startServe,
} from "../test/cluster/nodes.js";
import { serverDatabase } from "../test/server-db.js";
import { type CpuSplit, withCpuSplit } from "./cpu.js";
import { type Figure, percentile, throughput } from "./lib.js";

const describeCpu = (c: CpuSplit) =>
  `machine ${(100 * c.machineBusy).toFixed(0)} % of ${c.cores} cores busy; cores used: ` +
  `API nodes ${c.groups.map((g) => g.toFixed(2)).join(" + ")}, PostgreSQL ${c.postgres.toFixed(2)}, ` +
  `load generator ${c.self.toFixed(2)}`;

/** Resolves once GET `url` answers 200, polling every 2 ms from the moment it is called. */
async function first200(url: string): Promise<void> {
  for (;;) {
    const status = await new Promise<number>((resolve) => {
      const req = http.get(url, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", () => resolve(0));
    });
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Milliseconds from spawn to the first 200 from `/healthz`, over `runs` starts; the median. */
async function coldStarts(runs: number, start: (port: number) => KinoraProcess): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const port = await freePort();
    const t0 = performance.now();
    const p = start(port);
    await Promise.race([
      first200(`http://127.0.0.1:${port}/healthz`),
      p.exited.then(() => Promise.reject(new Error(`exited before serving:\n${p.output()}`))),
    ]);
    times.push(performance.now() - t0);
    await p.stop();
  }
  return percentile(times, 50);
}

const BARE_SERVER = `import http from "node:http";
http.createServer((req, res) => { res.writeHead(200, { "content-type": "application/json" });
  res.end('{"status":"ok"}'); }).listen(Number(process.env.PORT), "127.0.0.1");
`;

export async function benchColdStart(runs: number): Promise<Figure> {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-start-"));
  const bare = path.join(dir, "bare.mjs");
  writeFileSync(bare, BARE_SERVER);
  const env = { DATA_DIR: path.join(dir, "data"), LOG_LEVEL: "warn", HOST: "127.0.0.1" };
  try {
    // The first start creates the data directory (and dist/ if stale): not measured.
    const created = await startServe(env);
    await created.stop();
    const kinora = await coldStarts(runs, (port) =>
      spawnKinora(["serve"], { ...env, PORT: String(port) }),
    );
    const baseline = await coldStarts(runs, (port) => spawnNode([bare], { PORT: String(port) }));
    return {
      name: `cold start to first /healthz 200, median of ${runs}`,
      value: kinora,
      unit: "ms",
      baselineName: "bare node:http",
      baseline,
      better: "lower",
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Reply {
  status: number;
  body: string;
}

function post(agent: http.Agent, url: string, body: unknown, bearer: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(
      url,
      {
        agent,
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

const ADMIN = "bench-admin-token-0123456789";
const JOB = {
  duration_sec: 60,
  quality: "faithful",
  filename: "bench.mp4",
  content_type: "video/mp4",
  size: 1_000_000,
};

/**
 * Restore jobs created with a key (each one charge: lock wallet and key rows, job, ledger entry)
 * across 32 wallets, through one node and through two (requests alternate), in rounds that
 * alternate too so a noisy neighbour hurts both sides alike; the best round of each.
 */
export async function benchClusterCharges(total: number, rounds = 2): Promise<Figure | undefined> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stdout.write("  (charges through two nodes: skipped, DATABASE_URL is not set)\n");
    return undefined;
  }
  const db = await serverDatabase(url);
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-nodes-"));
  const env = {
    ...db.env,
    WORKERS: "0",
    RATE_LIMITS: "off",
    ADMIN_TOKEN: ADMIN,
    SIGNING_SECRET: "bench-signing-secret-0123456789abcdef",
    LOG_LEVEL: "warn",
  };
  const nodes: (KinoraProcess & { url: string })[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  try {
    nodes.push(await startServe({ ...env, DATA_DIR: path.join(dir, "a") }));
    nodes.push(await startServe({ ...env, DATA_DIR: path.join(dir, "b") }));
    const a = nodes[0]?.url as string;
    const keys: string[] = [];
    for (let i = 0; i < 32; i++) {
      const w = JSON.parse((await post(agent, `${a}/wallet`, {}, "")).body);
      await post(
        agent,
        `${a}/admin/wallets/${w.wallet.wallet_id}/credit`,
        { amount_cents: 10_000_000, reason: "bench funds" },
        ADMIN,
      );
      keys.push(w.key as string);
    }
    // A fresh agent per run: no socket left idle long enough for the server to close it.
    const run = async (urls: string[]) => {
      const load = new http.Agent({ keepAlive: true, maxSockets: 64 });
      try {
        return await throughput(total, 32, async (i) => {
          const base = urls[i % urls.length] as string;
          const key = keys[i % keys.length] as string;
          const res = await post(load, `${base}/cloud/jobs`, JOB, key);
          if (res.status !== 200) throw new Error(`POST /cloud/jobs: ${res.status} ${res.body}`);
        });
      } finally {
        load.destroy();
      }
    };
    const both = nodes.map((n) => n.url);
    await run(both); // warm-up: JIT, pools, caches on both nodes
    const groups = nodes.map((n) => n.proc.pid as number);
    let one = { rate: 0, cpu: "" };
    let two = { rate: 0, cpu: "" };
    for (let r = 0; r < rounds; r++) {
      const single = await withCpuSplit(groups, () => run([a]));
      if (single.result > one.rate) one = { rate: single.result, cpu: describeCpu(single.cpu) };
      const pair = await withCpuSplit(groups, () => run(both));
      if (pair.result > two.rate) two = { rate: pair.result, cpu: describeCpu(pair.cpu) };
    }
    // Where the cores went explains the ratio: with all of them busy behind one node, a second
    // node on the same machine has nothing to run on.
    process.stdout.write(`  (CPU, one node: ${one.cpu})\n  (CPU, two nodes: ${two.cpu})\n`);
    return {
      name: "charges/s (POST /cloud/jobs), two API nodes",
      value: two.rate,
      unit: "/s",
      baselineName: "one node",
      baseline: one.rate,
      better: "higher",
      aim: "≥ 1.6",
    };
  } finally {
    agent.destroy();
    await Promise.all(nodes.map((n) => n.kill()));
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
