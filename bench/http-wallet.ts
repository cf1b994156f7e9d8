/**
 * GET /wallet (auth lookup + wallet read) vs a trivial route on the same server and port,
 * both warmed, then in turns (`alternatingRates`).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { buildApp } from "../src/app.js";
import type { Database } from "../src/db/database.js";
import { createWallet } from "../src/services/wallets.js";
import { alternatingRates, benchPlatform, type Figure, httpLoad } from "./lib.js";

export async function benchGetWallet(
  database: Database,
  label: string,
  total: number,
): Promise<Figure> {
  const deps = benchPlatform(database);
  const app = buildApp(deps);
  app.get("/bench/hello", (c) => c.json({ hello: "world" }));
  const { key } = await createWallet(deps, {});
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
  await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const each = Math.ceil(total / 2);
    const rates = await alternatingRates({
      hello: () => httpLoad(`${base}/bench/hello`, { total: each, concurrency: 16 }),
      wallet: () =>
        httpLoad(`${base}/wallet`, {
          total: each,
          concurrency: 16,
          headers: { authorization: `Bearer ${key}` },
        }),
    });
    return {
      name: `GET /wallet req/s (${label})`,
      value: rates.wallet,
      unit: "/s",
      baselineName: "trivial route",
      baseline: rates.hello,
      better: "higher",
      aim: label === "PGlite" ? "≥ 0.6" : "≥ 0.5",
    };
  } finally {
    server.close();
    server.closeAllConnections();
  }
}
