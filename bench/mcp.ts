/**
 * MCP tools/call get_balance per second vs GET /wallet with the same agent key, on the same
 * server and port, in the same run (the MCP server is built per request, stateless).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { buildApp } from "../src/app.js";
import type { Database } from "../src/db/database.js";
import { mcpFeature } from "../src/features/mcp.js";
import { createAgentKey } from "../src/services/agent-keys.js";
import { createWallet } from "../src/services/wallets.js";
import { benchPlatform, type Figure, httpLoad } from "./lib.js";

export async function benchMcpBalance(
  database: Database,
  label: string,
  total: number,
): Promise<Figure> {
  const deps = benchPlatform(database);
  const app = buildApp(deps, [await mcpFeature()(deps)]);
  const { wallet } = await createWallet(deps, {});
  const { key } = await createAgentKey(deps, wallet.wallet_id, { limitCents: 1000 });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
  await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = { authorization: `Bearer ${key}` };
  try {
    const rest = await httpLoad(`${base}/wallet`, { total, concurrency: 16, headers: auth });
    const mcp = await httpLoad(`${base}/mcp`, {
      total,
      concurrency: 16,
      headers: {
        ...auth,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_balance", arguments: {} },
      }),
    });
    return {
      name: `MCP tools/call get_balance /s (${label})`,
      value: mcp,
      unit: "/s",
      baselineName: "GET /wallet, same key",
      baseline: rest,
      better: "higher",
      aim: "≥ 0.5",
    };
  } finally {
    server.close();
    server.closeAllConnections();
  }
}
