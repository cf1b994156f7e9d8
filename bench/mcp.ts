/**
 * MCP tools/call get_balance per second — a 2025-era client (plain JSON-RPC after
 * `initialize`) and a 2026-07-28 client (per-request envelope) — against GET /wallet with the
 * same agent key, on the same server and port, in the same run: all three warmed, then in turns
 * (`alternatingRates`). The MCP server is built per request (stateless).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { buildApp } from "../src/app.js";
import type { Database } from "../src/db/database.js";
import { mcpFeature } from "../src/features/mcp.js";
import { createAgentKey } from "../src/services/agent-keys.js";
import { createWallet } from "../src/services/wallets.js";
import { alternatingRates, benchPlatform, type Figure, httpLoad } from "./lib.js";

const CALL = { name: "get_balance", arguments: {} };

/** The two eras' requests for the same call, as their official clients send them. */
function eraRequests(auth: Record<string, string>) {
  const common = { ...auth, "content-type": "application/json" };
  return {
    "2025-11-25": {
      headers: {
        ...common,
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: CALL }),
    },
    "2026-07-28": {
      headers: {
        ...common,
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": CALL.name,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          ...CALL,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    },
  };
}

export async function benchMcpBalance(
  database: Database,
  label: string,
  total: number,
): Promise<Figure[]> {
  const deps = benchPlatform(database);
  const app = buildApp(deps, [await mcpFeature()(deps)]);
  const { wallet } = await createWallet(deps, {});
  const { key } = await createAgentKey(deps, wallet.wallet_id, { limitCents: 1000 });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
  await new Promise((r) => server.once("listening", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = { authorization: `Bearer ${key}` };
  const eras = eraRequests(auth);
  const each = Math.ceil(total / 3);
  const load = (url: string, request: { headers: Record<string, string>; body?: string }) => () =>
    httpLoad(url, { total: each, concurrency: 16, ...request });
  try {
    const rates = await alternatingRates({
      rest: load(`${base}/wallet`, { headers: auth }),
      "2025-11-25": load(`${base}/mcp`, eras["2025-11-25"]),
      "2026-07-28": load(`${base}/mcp`, eras["2026-07-28"]),
    });
    return (Object.keys(eras) as (keyof typeof eras)[]).map((era) => ({
      name: `MCP get_balance /s, ${era} (${label})`,
      value: rates[era],
      unit: "/s",
      baselineName: "GET /wallet, same key",
      baseline: rates.rest,
      better: "higher",
      aim: "≥ 0.8",
    }));
  } finally {
    server.close();
    server.closeAllConnections();
  }
}
