/**
 * What the rate limiter costs: GET /wallet with limits on vs off, two servers on the same
 * database and key, measured in alternating rounds so load from elsewhere on the machine falls
 * on both sides alike; the median round of each. The per-key limit is set far above the load
 * so every request passes and only the bookkeeping is measured.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import type { Database } from "../src/db/database.js";
import { createWallet } from "../src/services/wallets.js";
import { benchPlatform, type Figure, httpLoad, percentile } from "./lib.js";

async function serveWith(database: Database, rateLimits: "on" | "off") {
  const base = benchPlatform(database);
  const config = loadConfig({
    DATA_DIR: base.config.dataDir,
    LOG_LEVEL: "silent",
    RATE_LIMITS: rateLimits,
    RATE_LIMIT_KEY_PER_MIN: "10000000",
  });
  const server = serve({
    fetch: buildApp({ ...base, config }).fetch,
    port: 0,
    hostname: "127.0.0.1",
  }) as Server;
  await new Promise((r) => server.once("listening", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wallet`,
    close() {
      server.close();
      server.closeAllConnections();
    },
  };
}

export async function benchRateLimitOverhead(
  database: Database,
  label: string,
  total: number,
  rounds = 5,
): Promise<Figure> {
  const { key } = await createWallet(benchPlatform(database), {});
  const on = await serveWith(database, "on");
  const off = await serveWith(database, "off");
  const headers = { authorization: `Bearer ${key}` };
  try {
    const onRates: number[] = [];
    const offRates: number[] = [];
    for (let r = 0; r < rounds; r++) {
      offRates.push(await httpLoad(off.url, { total, concurrency: 16, headers }));
      onRates.push(await httpLoad(on.url, { total, concurrency: 16, headers }));
    }
    return {
      name: `GET /wallet req/s, rate limits on (${label})`,
      value: percentile(onRates, 50),
      unit: "/s",
      baselineName: "limits off",
      baseline: percentile(offRates, 50),
      better: "higher",
      aim: "≥ 0.95",
    };
  } finally {
    on.close();
    off.close();
  }
}
