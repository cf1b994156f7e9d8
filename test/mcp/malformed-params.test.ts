/**
 * Malformed params of `initialize` and `tools/call` are the caller's mistake: JSON-RPC -32602
 * (Invalid params) naming what is wrong, never -32603 (Internal error).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { INIT, rpc } from "./helpers.js";

let s: ServedApp;
let auth: Record<string, string>;
beforeAll(async () => {
  s = await serveTestApp({ features: [paymentsFeature(), mcpFeature()] });
  const owner = await s.t.newWallet(1000);
  auth = { authorization: `Bearer ${(await s.t.newAgentKey(owner.key, 500)).key}` };
});
afterAll(async () => {
  await s.close();
});

const call = (params: unknown) => ({ jsonrpc: "2.0", id: 7, method: "tools/call", params });

describe("malformed params", () => {
  it.each([
    ["initialize without params", { ...INIT, params: undefined }],
    ["initialize without clientInfo", { ...INIT, params: { protocolVersion: "2025-06-18" } }],
    ["tools/call without params", call(undefined)],
    ["tools/call without a name", call({ arguments: {} })],
    ["tools/call with a numeric name", call({ name: 5 })],
    ["tools/call with arguments a string", call({ name: "get_balance", arguments: "x" })],
  ])("answers %s with -32602", async (_what, body) => {
    const res = await rpc(s.url, body, { ...auth, "mcp-protocol-version": "2025-06-18" });
    expect(res.body.error?.code, JSON.stringify(res.body)).toBe(-32602);
    expect(res.body.error.message).toMatch(/^Invalid params for (initialize|tools\/call): params/);
  });

  // params that are not an object make the message itself invalid (MCP's requests take an
  // object): -32600, as the SDK classifies it before any method runs.
  it.each([
    ["initialize with params a string", { ...INIT, params: "hello" }],
    ["tools/call with params an array", call([1, 2])],
  ])("answers %s with -32600", async (_what, body) => {
    const res = await rpc(s.url, body, { ...auth, "mcp-protocol-version": "2025-06-18" });
    expect(res.body.error?.code, JSON.stringify(res.body)).toBe(-32600);
  });
});
