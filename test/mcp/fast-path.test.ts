/**
 * The fast path (src/mcp/fast-path.ts) against the SDK path it stands in for: the same requests
 * through an endpoint with the fast path and one without, answered byte for byte the same
 * (status, content type, body) — successes, refusals, x402 errors and receipts, in both eras
 * — and the requests it must leave to the SDK (progress, tasks, unknown tools, odd headers)
 * are left to it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as payments from "../../src/api/contracts/payments.js";
import { implement, reply } from "../../src/api/operation.js";
import { ApiError } from "../../src/domain/errors.js";
import { createMcpEndpoint, type McpEndpoint } from "../../src/mcp/handler.js";
import { walletOperations } from "../../src/operations/wallet.js";
import { encodeSettlementHeader } from "../../src/payments/x402/terms.js";
import { createTestApp, type TestApp } from "../app.js";
import { modern } from "./helpers.js";

const SETTLEMENT = {
  success: true,
  transaction: "0x9b3f0c2e5b1b8f6f4a9c1e2d3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a",
  network: "eip155:8453",
  payer: "0x1111111111111111111111111111111111111111",
} as const;

/** Tools of real contracts whose handlers answer what the encoding must carry. */
const testOperations = (t: TestApp) => [
  ...walletOperations(t.platform),
  // A receipt in _meta, non-ASCII text, a nested structuredContent.
  implement(payments.topUpWithUsdc, async () =>
    reply({ credited_cents: 150, note: "crédité ✓", wallet: { balance_cents: 150 } } as never, {
      paymentResponse: encodeSettlementHeader(SETTLEMENT as never),
    }),
  )(undefined),
  // An x402 refusal: {"x402/error": …} text.
  implement(payments.createTopUpLink, async () => {
    throw new ApiError("payment_required", "Pay first.", {
      payment_required: { x402Version: 2, accepts: [{ scheme: "exact", amount: "1500000" }] },
    });
  })(undefined),
];

let t: TestApp;
let key: string;
let fast: McpEndpoint;
let sdk: McpEndpoint;
beforeAll(async () => {
  t = await createTestApp();
  const owner = await t.newWallet(1000);
  key = (await t.newAgentKey(owner.key, 500)).key;
  const services = { deps: t.platform, operations: testOperations(t), kinds: [] };
  fast = createMcpEndpoint(services);
  sdk = createMcpEndpoint(services, { fastPath: false });
});
afterAll(async () => {
  await t.close();
});

const LEGACY = {
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};

function request(body: unknown, headers: Record<string, string>): Request {
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** What the endpoint answered, and whether the fast path answered it. */
async function answer(endpoint: McpEndpoint, body: unknown, headers: Record<string, string>) {
  const res = await endpoint.handle(request(body, headers), "req_fastpath0000000000000");
  if (res instanceof Response) {
    return {
      fast: false,
      status: res.status,
      type: res.headers.get("content-type"),
      text: await res.text(),
    };
  }
  return { fast: true, status: res.status, type: "application/json", text: res.json };
}

const call = (name: string, args: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: extra.id ?? 7,
  method: "tools/call",
  params: { name, arguments: args, ...(extra._meta ? { _meta: extra._meta } : {}) },
});

describe("the fast path answers what the SDK answers, byte for byte", () => {
  const cases: [string, () => { body: unknown; headers: Record<string, string> }][] = [
    ["2025: a success", () => ({ body: call("get_balance", {}), headers: LEGACY })],
    [
      "2025: a string id, no version header, JSON only",
      () => ({
        body: call("get_balance", {}, { id: "call-ü-1" }),
        headers: { accept: "application/json" },
      }),
    ],
    [
      "2025: a refusal naming the field",
      () => ({
        body: call("get_balance", { extra: 1 }),
        headers: LEGACY,
      }),
    ],
    [
      "2025: a receipt in _meta, payment in _meta",
      () => ({
        body: call(
          "top_up_with_usdc",
          { amount_cents: 150 },
          {
            _meta: { "x402/payment": { x402Version: 2 } },
          },
        ),
        headers: LEGACY,
      }),
    ],
    [
      "2025: an x402 refusal",
      () => ({
        body: call("create_top_up_link", { amount_cents: 1000 }),
        headers: { ...LEGACY, "mcp-protocol-version": "2025-03-26" },
      }),
    ],
    ...(
      [
        ["a success", "get_balance", {}, {}],
        ["a refusal", "get_balance", { extra: 1 }, {}],
        ["a receipt", "top_up_with_usdc", { amount_cents: 150 }, { "x402/payment": { a: 1 } }],
        ["an x402 refusal", "create_top_up_link", { amount_cents: 1000 }, {}],
      ] as const
    ).map(
      ([what, name, args, meta]) =>
        [
          `2026: ${what}`,
          () => {
            const m = modern(
              "tools/call",
              { name, arguments: args, _meta: meta },
              {
                capabilities: {
                  elicitation: {},
                  extensions: { "io.modelcontextprotocol/tasks": {} },
                },
              },
            );
            const body = m.body as { params: { _meta: Record<string, unknown> } };
            body.params._meta["io.modelcontextprotocol/clientInfo"] = { name: "c", version: "1" };
            return {
              body,
              headers: { ...m.headers, accept: "application/json, text/event-stream" },
            };
          },
        ] as [string, () => { body: unknown; headers: Record<string, string> }],
    ),
  ];
  for (const [name, make] of cases) {
    it(name, async () => {
      const { body, headers } = make();
      const viaSdk = await answer(sdk, body, headers);
      const viaFast = await answer(fast, body, headers);
      expect(viaSdk.fast).toBe(false);
      expect(viaFast.fast, "answered by the fast path").toBe(true);
      expect(viaFast).toEqual({ ...viaSdk, fast: true });
      expect(viaSdk.status).toBe(200);
    });
  }
});

describe("what the fast path leaves to the SDK", () => {
  const cold: [string, unknown, Record<string, string>][] = [
    ["a progress token", { ...call("get_balance", {}, { _meta: { progressToken: 1 } }) }, LEGACY],
    ["an unknown tool", call("no_such_tool", {}), LEGACY],
    ["tools/list", { jsonrpc: "2.0", id: 1, method: "tools/list" }, LEGACY],
    [
      "a task request",
      { ...call("get_balance", {}), params: { name: "get_balance", task: {} } },
      LEGACY,
    ],
    ["a fractional id", call("get_balance", {}, { id: 1.5 }), LEGACY],
    [
      "an unsupported version",
      call("get_balance", {}),
      { ...LEGACY, "mcp-protocol-version": "2099-01-01" },
    ],
    ["a batch", [call("get_balance", {})], { accept: "application/json" }],
  ];
  for (const [name, body, headers] of cold) {
    it(name, async () => {
      expect((await answer(fast, body, headers)).fast).toBe(false);
    });
  }

  it("2026: a missing Mcp-Name header, or a log level in the envelope", async () => {
    const m = modern("tools/call", { name: "get_balance", arguments: {} });
    const { "mcp-name": _, ...withoutName } = m.headers;
    expect((await answer(fast, m.body, withoutName)).fast).toBe(false);
    const logged = structuredClone(m.body) as { params: { _meta: Record<string, unknown> } };
    logged.params._meta["io.modelcontextprotocol/logLevel"] = "info";
    expect((await answer(fast, logged, m.headers)).fast).toBe(false);
  });
});
