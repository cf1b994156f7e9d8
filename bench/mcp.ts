/**
 * MCP tools/call get_balance — a 2025-era client (plain JSON-RPC after `initialize`) and a
 * 2026-07-28 client (per-request envelope) — against GET /wallet with the same agent key, on
 * the same server and port, in the same run: all three warmed, then nine rounds in turns,
 * medians. Two figures per era: the server's CPU per request (the aim: MCP costs at most 1/0.8 of REST),
 * with the load generator in a child process so the CPU counted is the server's alone; and
 * requests per second as that run's load generator saw them (on a busy machine the scheduler
 * moves those far more than the code does).
 */
import { fork } from "node:child_process";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { buildApp } from "../src/app.js";
import type { Database } from "../src/db/database.js";
import { mcpFeature } from "../src/features/mcp.js";
import { createAgentKey } from "../src/services/agent-keys.js";
import { createWallet } from "../src/services/wallets.js";
import { benchPlatform, type Figure, median } from "./lib.js";

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

/** A load generator in its own process; each round reports its rate and the server's CPU. */
async function remoteLoad() {
  const child = fork(new URL("./load-child.ts", import.meta.url), [], {
    execArgv: ["--import", "tsx"],
  });
  await new Promise<void>((resolve) => child.once("message", () => resolve()));
  const round = async (
    url: string,
    req: { headers: Record<string, string>; body?: string },
    total: number,
  ) => {
    const cpu0 = process.cpuUsage();
    child.send({ url, total, concurrency: 16, ...req });
    const answer = await new Promise<{ rps?: number; error?: string }>((resolve) =>
      child.once("message", resolve),
    );
    const cpu = process.cpuUsage(cpu0);
    if (answer.error || answer.rps === undefined) throw new Error(answer.error ?? "no rate");
    // httpLoad sends a warm-up of up to 200 requests before the timed ones: both are served.
    const served = total + Math.min(200, total);
    return { rps: answer.rps, cpuUs: (cpu.user + cpu.system) / served };
  };
  return { round, stop: () => child.send("stop") };
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
  const sides = {
    rest: { url: `${base}/wallet`, req: { headers: auth } },
    "2025-11-25": { url: `${base}/mcp`, req: eras["2025-11-25"] },
    "2026-07-28": { url: `${base}/mcp`, req: eras["2026-07-28"] },
  };
  type Side = keyof typeof sides;
  const names = Object.keys(sides) as Side[];
  const load = await remoteLoad();
  try {
    // Every side once untimed (compiled before it counts), then rounds in rotating order.
    for (const name of names) await load.round(sides[name].url, sides[name].req, each);
    const got = Object.fromEntries(
      names.map((n) => [n, { rps: [] as number[], cpu: [] as number[] }]),
    );
    // Nine rounds: a burst of load elsewhere moves one round of a side, not its median.
    const rounds = 9;
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + r) % names.length] as Side;
        const m = await load.round(sides[name].url, sides[name].req, each);
        got[name]?.rps.push(m.rps);
        got[name]?.cpu.push(m.cpuUs);
      }
    }
    const cpu = (n: Side) => median(got[n]?.cpu ?? []);
    const rps = (n: Side) => median(got[n]?.rps ?? []);
    return (Object.keys(eras) as (keyof typeof eras)[]).flatMap((era): Figure[] => [
      {
        name: `MCP get_balance per server CPU-s, ${era} (${label})`,
        value: 1e6 / cpu(era),
        unit: "/CPU-s",
        baselineName: "GET /wallet, same key",
        baseline: 1e6 / cpu("rest"),
        better: "higher",
        aim: "≥ 0.8",
      },
      {
        name: `MCP get_balance /s, ${era} (${label})`,
        value: rps(era),
        unit: "/s",
        baselineName: "GET /wallet, same key",
        baseline: rps("rest"),
        better: "higher",
      },
    ]);
  } finally {
    load.stop();
    server.close();
    server.closeAllConnections();
  }
}
