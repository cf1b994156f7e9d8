/**
 * GET /wallet (auth lookup + wallet read) vs a trivial route on the same server and port.
 * The two alternate for three rounds and each figure is the median of its rounds, so a burst
 * of load from elsewhere on the machine moves one round, not the ratio.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { buildApp } from "../src/app.js";
import type { Database } from "../src/db/database.js";
import { createWallet } from "../src/services/wallets.js";
import { benchPlatform, type Figure, httpLoad, median } from "./lib.js";

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
    const hello: number[] = [];
    const wallet: number[] = [];
    for (let round = 0; round < 3; round++) {
      const each = Math.ceil(total / 2);
      hello.push(await httpLoad(`${base}/bench/hello`, { total: each, concurrency: 16 }));
      wallet.push(
        await httpLoad(`${base}/wallet`, {
          total: each,
          concurrency: 16,
          headers: { authorization: `Bearer ${key}` },
        }),
      );
    }
    return {
      name: `GET /wallet req/s (${label})`,
      value: median(wallet),
      unit: "/s",
      baselineName: "trivial route",
      baseline: median(hello),
      better: "higher",
      aim: label === "PGlite" ? "≥ 0.6" : "≥ 0.5",
    };
  } finally {
    server.close();
    server.closeAllConnections();
  }
}
