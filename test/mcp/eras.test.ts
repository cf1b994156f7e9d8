/**
 * The clients assistants are built on, each against the same /mcp: the SDK v2 client speaking
 * 2026-07-28, the v2 client speaking the 2025 era, and the 1.32 client. Each lists the tools
 * first (from then on it checks results against the output schemas), reads the instructions,
 * calls a tool, and sees every kind of refusal as an `isError` result carrying the error body.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiOnlyFeatures, type ServedApp, serveTestApp } from "../served.js";
import { CLIENTS, call, connect, refusal } from "./helpers.js";

let s: ServedApp;
beforeAll(async () => {
  s = await serveTestApp({
    features: apiOnlyFeatures(),
  });
});
afterAll(async () => {
  await s.close();
});

/** An agent key; pre-agreed (spends without asking) unless `ask` (./agreement.test.ts). */
async function agentKey(balance: number, limit: number, ask = false) {
  const owner = await s.t.newWallet(balance);
  return (await s.t.newAgentKey(owner.key, limit, { askBeforeSpending: ask })).key;
}

const VERSION: Record<(typeof CLIENTS)[number], string> = {
  "v2 2026-07-28": "2026-07-28",
  "v2 2025-11-25": "2025-11-25",
  "sdk 1.32": "2025-11-25",
};

describe.each(CLIENTS)("%s", (kind) => {
  it("negotiates its era, lists the 15 tools, reads the instructions and calls a tool", async () => {
    const client = await connect(s.url, await agentKey(1000, 700, true), { client: kind });
    expect(client.protocolVersion()).toBe(VERSION[kind]);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(15);
    for (const tool of tools) expect(tool.outputSchema?.type, tool.name).toBe("object");
    expect(client.getInstructions()).toMatch(/NOT agreed in advance.*\$7\.00/s);
    const res = await call(client, "get_balance");
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent.wallet).toMatchObject({
      balance_cents: 1000,
      spendable_cents: 700,
    });
    expect(JSON.parse(res.content[0].text)).toEqual(res.structuredContent);
    await client.close();
  });

  it("reads every refusal as isError with the error body, after tools/list", async () => {
    const client = await connect(s.url, await agentKey(50, 5000), { client: kind });
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ["quote_restore", { duration_sec: "long" }, { code: "invalid_field" }],
      ["get_clip", { job_id: "clip_nothing_here" }, { code: "not_found" }],
      ["make_clip", { prompt: "waves", content_type: "image/png" }, { code: "needs_topup" }],
      ["make_clip", { prompt: "a naked woman", content_type: "image/png" }, { code: "refused" }],
      ["top_up_with_usdc", { amount_cents: 500 }, { code: "unavailable" }],
    ];
    for (const [tool, args, expected] of cases) {
      const body = refusal(await call(client, tool, args));
      expect(body, `${tool} ${JSON.stringify(args)}`).toMatchObject(expected);
      expect(body.detail, tool).toEqual(expect.any(String));
      expect(body.request_id, tool).toMatch(/^req_/);
    }
    await client.close();
  });
});
