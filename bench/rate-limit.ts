/**
 * What the rate limiter costs on GET /wallet: `kinora serve` with limits on and off (the
 * per-key limit far above the load, so every request passes and only the bookkeeping is
 * measured), in pairs of back-to-back rounds whose order alternates. Every round starts a
 * process of its own and warms it up first: two processes kept side by side differ by up to
 * 10 % in CPU per request whatever their settings (which one started first, which one runs the
 * shared database's background work). The headline is the server's CPU per request (from
 * /proc, so the load generator's own work stays out of it): on vs off, the median of the pairs'
 * ratios. Throughput is shown beside it; on two shared cores it swings by ±5 % on its own.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type KinoraProcess, startServe } from "../test/cluster/nodes.js";
import { serverDatabase } from "../test/server-db.js";
import { withCpuSplit } from "./cpu.js";
import { type Figure, httpLoad, percentile } from "./lib.js";

interface Side {
  node: KinoraProcess & { url: string };
  key: string;
}

async function startSide(env: Record<string, string>, limits: "on" | "off"): Promise<Side> {
  const node = await startServe({
    ...env,
    RATE_LIMITS: limits,
    RATE_LIMIT_KEY_PER_MIN: "10000000",
    LOG_LEVEL: "warn",
    WORKERS: "0",
  });
  const res = await fetch(`${node.url}/wallet`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  if (res.status !== 200) throw new Error(`POST /wallet: ${res.status} ${await res.text()}`);
  const { key } = (await res.json()) as { key: string };
  return { node, key };
}

/**
 * One round on a fresh process: warm it up with `total` requests, then measure `total` more:
 * requests per second and the server's CPU µs per request.
 */
async function round(
  env: Record<string, string>,
  limits: "on" | "off",
  total: number,
): Promise<{ rate: number; cpuUs: number }> {
  const side = await startSide(env, limits);
  try {
    const headers = { authorization: `Bearer ${side.key}` };
    const load = () => httpLoad(`${side.node.url}/wallet`, { total, concurrency: 16, headers });
    await load();
    const { result: rate, cpu } = await withCpuSplit([side.node.proc.pid as number], load);
    return { rate, cpuUs: (1e6 * (cpu.groups[0] as number) * cpu.wallSec) / total };
  } finally {
    await side.node.kill();
  }
}

/** `databaseUrl`: both servers on one fresh PostgreSQL database; without it, PGlite each. */
export async function benchRateLimitOverhead(
  databaseUrl: string | undefined,
  total: number,
  rounds = 5,
): Promise<Figure[]> {
  const label = databaseUrl ? "PostgreSQL" : "PGlite";
  // serverDatabase() would fall back to DATABASE_URL: PGlite must not ask it at all.
  const db = databaseUrl ? await serverDatabase(databaseUrl) : { env: {}, drop: async () => {} };
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-bench-limits-"));
  // A data directory per process: PGlite is opened afresh, never after a killed process.
  let n = 0;
  const env = () => ({ ...db.env, DATA_DIR: path.join(dir, `node-${n++}`) });
  const on = () => round(env(), "on", total);
  const off = () => round(env(), "off", total);
  try {
    const onRounds: Array<{ rate: number; cpuUs: number }> = [];
    const offRounds: Array<{ rate: number; cpuUs: number }> = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        offRounds.push(await off());
        onRounds.push(await on());
      } else {
        onRounds.push(await on());
        offRounds.push(await off());
      }
    }
    const pairs = onRounds.map((o, i) => o.cpuUs / (offRounds[i] as { cpuUs: number }).cpuUs);
    const median = (xs: number[]) => percentile(xs, 50);
    return [
      {
        name: `GET /wallet server CPU per request, limits on (${label}, pairs)`,
        value: median(pairs),
        unit: "×",
        baselineName: "limits off",
        baseline: 1,
        better: "lower",
        aim: "≤ 1.05",
      },
      {
        name: `GET /wallet server CPU per request, limits on (${label})`,
        value: median(onRounds.map((r) => r.cpuUs)),
        unit: "µs",
        baselineName: "limits off",
        baseline: median(offRounds.map((r) => r.cpuUs)),
        better: "lower",
      },
      {
        name: `GET /wallet req/s, limits on (${label})`,
        value: median(onRounds.map((r) => r.rate)),
        unit: "/s",
        baselineName: "limits off",
        baseline: median(offRounds.map((r) => r.rate)),
        better: "higher",
      },
    ];
  } finally {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
