/**
 * What metrics cost a request: GET /wallet req/s with the metrics feature listening (every
 * request observed into a counter and a histogram) vs the same route without it, same run, on
 * two servers of one process taking turns.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { buildApp } from "../src/app.js";
import type { Database } from "../src/db/database.js";
import type { Feature } from "../src/feature.js";
import { metricsFeature } from "../src/features/metrics.js";
import { createWallet } from "../src/services/wallets.js";
import { alternatingRates, benchPlatform, type Figure, httpLoad } from "./lib.js";

/** A server with `features` and a key: its GET /wallet under load, `total` requests a time. */
async function walletServer(database: Database, features: Feature[] | "metrics", total: number) {
  const deps = benchPlatform(database);
  const list = features === "metrics" ? [await metricsFeature()(deps)] : features;
  const app = buildApp(deps, list);
  const { key } = await createWallet(deps, {});
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
  await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    load: () =>
      httpLoad(`${base}/wallet`, {
        total,
        concurrency: 16,
        headers: { authorization: `Bearer ${key}` },
      }),
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

export async function benchMetricsOverhead(
  database: Database,
  label: string,
  total: number,
): Promise<Figure> {
  // Two servers side by side, one with the metrics feature: both warmed, then in turns.
  const plain = await walletServer(database, [], Math.ceil(total / 3));
  const observed = await walletServer(database, "metrics", Math.ceil(total / 3));
  try {
    const rates = await alternatingRates({ without: plain.load, metrics: observed.load });
    return {
      name: `GET /wallet req/s with metrics (${label})`,
      value: rates.metrics,
      unit: "/s",
      baselineName: "without metrics",
      baseline: rates.without,
      better: "higher",
      aim: "≥ 0.95",
    };
  } finally {
    plain.close();
    observed.close();
  }
}
