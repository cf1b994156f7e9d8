/**
 * What metrics cost a request: GET /wallet req/s with the metrics feature listening (every
 * request observed into a counter and a histogram) vs the same route without it, same run.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { buildApp } from "../src/app.js";
import type { Database } from "../src/db/database.js";
import type { Feature } from "../src/feature.js";
import { metricsFeature } from "../src/features/metrics.js";
import { createWallet } from "../src/services/wallets.js";
import { benchPlatform, type Figure, httpLoad } from "./lib.js";

async function walletRate(database: Database, features: Feature[] | "metrics", total: number) {
  const deps = benchPlatform(database);
  const list = features === "metrics" ? [await metricsFeature()(deps)] : features;
  const app = buildApp(deps, list);
  const { key } = await createWallet(deps, {});
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
  await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    return await httpLoad(`${base}/wallet`, {
      total,
      concurrency: 16,
      headers: { authorization: `Bearer ${key}` },
    });
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

export async function benchMetricsOverhead(
  database: Database,
  label: string,
  total: number,
): Promise<Figure> {
  // Warm both paths once so neither pays the JIT alone.
  await walletRate(database, [], Math.min(total, 500));
  const without = await walletRate(database, [], total);
  const withMetrics = await walletRate(database, "metrics", total);
  return {
    name: `GET /wallet req/s with metrics (${label})`,
    value: withMetrics,
    unit: "/s",
    baselineName: "without metrics",
    baseline: without,
    better: "higher",
    aim: "≥ 0.95",
  };
}
