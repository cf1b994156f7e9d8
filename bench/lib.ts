/** Shared benchmark helpers: timing, load generation and figure printing as ratios. */

import http from "node:http";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../src/config.js";
import type { Database } from "../src/db/database.js";
import { createEventHub } from "../src/domain/events.js";
import { randomId } from "../src/domain/ids.js";
import type { Platform } from "../src/feature.js";
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
    notifyJobs: async () => {},
  };
}
