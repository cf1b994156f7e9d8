/** Shared benchmark helpers: timing, load generation and figure printing as ratios. */

import http from "node:http";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../src/config.js";
import type { Database } from "../src/db/database.js";
import { createEventHub } from "../src/domain/events.js";
import { randomId } from "../src/domain/ids.js";
import type { Platform } from "../src/feature.js";
import { createJobKindRegistry } from "../src/jobs/queue-estimate/kinds.js";
import { silentLogger } from "../src/logger.js";
import { keyCacheFor } from "../src/services/key-cache-for.js";
import { rateLimiterFor } from "../src/services/rate-limiter-for.js";
import { createSigner } from "../src/signing.js";
import { createLocalBlobStore } from "../src/storage/local-store.js";

export interface Figure {
  name: string;
  value: number;
  unit: string;
  baselineName: string;
  baseline: number;
  /** "higher" when a bigger value is better (throughput), "lower" for times. */
  better: "higher" | "lower";
  aim?: string;
}

export function printFigure(f: Figure) {
  const ratio = f.value / f.baseline;
  const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(2));
  process.stdout.write(
    `  ${f.name.padEnd(44)} ${fmt(f.value).padStart(9)} ${f.unit.padEnd(7)} vs ${f.baselineName} ${fmt(f.baseline)} ${f.unit}` +
      `  → ratio ${ratio.toFixed(2)}${f.aim ? `  (aim ${f.aim})` : ""}` +
      // The machine may be shared: the 1-minute load average says how far to trust a figure.
      `  [load ${(loadavg()[0] ?? 0).toFixed(1)}]\n`,
  );
}

/** Runs `task` with `concurrency` loops until `total` calls are done; returns calls per second. */
export async function throughput(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        await task(i);
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

/** HTTP GET load with keep-alive connections; returns requests per second. */
export async function httpLoad(
  url: string,
  opts: {
    total: number;
    concurrency: number;
    headers?: Record<string, string>;
    /** A POST with this body instead of a GET. */
    body?: string;
  },
) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const get = () =>
    new Promise<void>((resolve, reject) => {
      const method = opts.body === undefined ? "GET" : "POST";
      const req = http.request(url, { agent, method, headers: opts.headers }, (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
        );
      });
      req.on("error", reject);
      req.end(opts.body);
    });
  await throughput(Math.min(200, opts.total), opts.concurrency, get); // warm-up
  const rps = await throughput(opts.total, opts.concurrency, get);
  agent.destroy();
  return rps;
}

/**
 * Rates of several sides measured against each other: each side runs once untimed, so every
 * code path is compiled by V8 before any round counts (a route met first was measured while
 * it was still being optimised: GET /wallet read 5,200/s in its own figure and 6,700–7,500/s
 * in the next two, same process), then `rounds` rounds in which the sides take turns, the
 * order rotating each round. Each side's figure is the median of its rounds, so a burst of
 * load from elsewhere on the machine moves one round, not the ratio.
 */
export async function alternatingRates<K extends string>(
  sides: Record<K, () => Promise<number>>,
  rounds = 3,
): Promise<Record<K, number>> {
  const names = Object.keys(sides) as K[];
  for (const name of names) await sides[name]();
  const rates = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length] as K;
      rates[name].push(await sides[name]());
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(rates[n])])) as Record<K, number>;
}

/** The middle value (the upper one of an even count). */
export function median(values: number[]): number {
  return percentile(values, 50);
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * A platform over a benchmark database, with local storage in a temp dir, composed as
 * `kinora serve` composes it (a key cache on PGlite, none on PostgreSQL).
 */
export function benchPlatform(opened: Database, publicUrl = "http://127.0.0.1:0"): Platform {
  const { database, keyCache } = keyCacheFor(opened);
  const dataDir = path.join(tmpdir(), `kinora-bench-${process.pid}`);
  const signingSecret = "bench-signing-secret-0123456789abcdef";
  const signer = createSigner(signingSecret);
  return {
    db: database.db,
    clock: () => new Date(),
    ids: randomId,
    log: silentLogger,
    keyCache,
    // Limits off: one key sends thousands of requests a minute here; the limiter's own cost is
    // measured by bench/rate-limit.ts, with and without it in the same run.
    config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent", RATE_LIMITS: "off" }),
    database,
    storage: createLocalBlobStore({
      rootDir: path.join(dataDir, "files"),
      publicBaseUrl: publicUrl,
      signer,
    }),
    adminToken: "bench-admin-token-000000",
    signer,
    publicUrl,
    rateLimiter: rateLimiterFor(database),
    events: createEventHub(),
    jobKinds: createJobKindRegistry(),
    notifyJobs: async () => {},
  };
}
