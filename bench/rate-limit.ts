/**
 * What the rate limiter costs: GET /wallet with limits on vs off, two servers on the same
 * database and key, measured in pairs of back-to-back rounds (which side goes first
 * alternates) so load from elsewhere on the machine falls on both sides alike. The headline is
 * the median of the pairs' ratios, beside the median rates. The per-key limit is set far above
 * the load so every request passes and only the bookkeeping is measured.
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
  rounds = 7,
): Promise<Figure[]> {
  const { key } = await createWallet(benchPlatform(database), {});
  const on = await serveWith(database, "on");
  const off = await serveWith(database, "off");
  const headers = { authorization: `Bearer ${key}` };
  try {
    const onRates: number[] = [];
    const offRates: number[] = [];
    const load = (url: string) => httpLoad(url, { total, concurrency: 16, headers });
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        offRates.push(await load(off.url));
        onRates.push(await load(on.url));
      } else {
        onRates.push(await load(on.url));
        offRates.push(await load(off.url));
      }
    }
    const pairRatio = percentile(
      onRates.map((rate, i) => rate / (offRates[i] as number)),
      50,
    );
    return [
      {
        name: `GET /wallet, rate limits on vs off (${label}, pairs)`,
        value: pairRatio,
        unit: "×",
        baselineName: "limits off",
        baseline: 1,
        better: "higher",
        aim: "≥ 0.95",
      },
      {
        name: `GET /wallet req/s, rate limits on (${label})`,
        value: percentile(onRates, 50),
        unit: "/s",
        baselineName: "limits off",
        baseline: percentile(offRates, 50),
        better: "higher",
      },
    ];
  } finally {
    on.close();
    off.close();
  }
}
