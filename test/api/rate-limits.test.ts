/** Rate limits and caps through the API: per address, per key, shared with MCP; the key cap. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { createTestApp, type TestApp } from "../app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    features: [clipsFeature({ noExecutor: true }), paymentsFeature(), mcpFeature()],
    env: {
      RATE_LIMITS: "on",
      RATE_LIMIT_CREATE_PER_MIN: "3",
      RATE_LIMIT_SPEND_PER_MIN: "4",
      MAX_AGENT_KEYS: "2",
    },
  });
});
afterAll(async () => {
  await t.close();
});

describe("rate limits", () => {
  it("limits unauthenticated creates per address, with RateLimit and Retry-After headers", async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await t.call("POST", "/wallet", { body: {} }));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(answers[0]?.headers.get("ratelimit-limit")).toBe("3");
    expect(answers[0]?.headers.get("ratelimit-remaining")).toBe("2");
    const refused = answers[3];
    expect(refused?.body).toMatchObject({ code: "rate_limited" });
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
    t.clock.advance(60_000);
    expect((await t.call("POST", "/wallet", { body: {} })).status).toBe(200);
  });

  it("limits spending per key (REST and MCP together), charging nothing when refused", async () => {
    t.clock.advance(60_000);
    const owner = await t.newWallet(10_000);
    const agent = await t.newAgentKey(owner.key, 5_000);
    const make = () =>
      t.call("POST", "/motion/jobs", {
        key: agent.key,
        body: { prompt: "waves", content_type: "image/png" },
      });
    expect((await make()).status).toBe(200);
    expect((await make()).status).toBe(200);
    expect((await make()).status).toBe(200);
    const viaMcp = () =>
      t.call("POST", "/mcp", {
        key: agent.key,
        headers: { accept: "application/json, text/event-stream" },
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          // The key must ask its owner: the assistant passes the price the owner agreed to.
          params: {
            name: "make_clip",
            arguments: { prompt: "waves", content_type: "image/png", max_price_cents: 59 },
          },
        },
      });
    // The fourth spend of the minute, over MCP, is the last one allowed…
    expect((await viaMcp()).body.result.isError).toBeFalsy();
    // …then both surfaces refuse, charging nothing.
    expect((await make()).status).toBe(429);
    const refused = (await viaMcp()).body.result;
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toBeUndefined();
    expect(JSON.parse(refused.content[0].text)).toMatchObject({ code: "rate_limited" });
    const wallet = await t.call("GET", "/wallet", { key: owner.key });
    expect(wallet.body.wallet.balance_cents).toBe(10_000 - 4 * 59);
    // Another key of the same wallet has its own budget.
    const other = await t.newAgentKey(owner.key, 1_000);
    const ok = await t.call("POST", "/motion/jobs", {
      key: other.key,
      body: { prompt: "waves", content_type: "image/png" },
    });
    expect(ok.status).toBe(200);
  });

  it("puts the request id and the RateLimit headers on every kind of response", async () => {
    // Headers are prepared before the route runs; a route that returns its own Response (the
    // MCP endpoint) gets them afterwards, and so do 404s and refusals.
    t.clock.advance(60_000);
    const owner = await t.newWallet(0);
    const agent = await t.newAgentKey(owner.key, 100);
    const answers = {
      json: await t.call("GET", "/wallet", { key: owner.key }),
      ownResponse: await t.call("POST", "/mcp", {
        key: agent.key,
        headers: { accept: "application/json, text/event-stream" },
        body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      }),
      notFound: await t.call("GET", "/wallet/nothing-here", { key: owner.key }),
      refused: await t.call("POST", "/wallet/keys", { key: owner.key, body: { limit_cents: -1 } }),
    };
    for (const [kind, answer] of Object.entries(answers)) {
      expect(answer.headers.get("x-request-id"), kind).toMatch(/^req_/);
      expect(answer.headers.get("ratelimit-limit"), kind).toMatch(/^\d+$/);
    }
    // This server has no restore feature: the tools of the features it has.
    expect(answers.ownResponse.body.result.tools.length).toBeGreaterThanOrEqual(9);
    expect(answers.refused.status).toBe(400);
    expect(answers.refused.body.request_id).toBe(answers.refused.headers.get("x-request-id"));
  });

  it("caps the active agent keys of a wallet; revoking one makes room", async () => {
    t.clock.advance(60_000);
    const owner = await t.newWallet(0);
    const first = await t.newAgentKey(owner.key, 100);
    await t.newAgentKey(owner.key, 100);
    const third = await t.call("POST", "/wallet/keys", {
      key: owner.key,
      body: { limit_cents: 100 },
    });
    expect(third.status).toBe(409);
    expect(third.body.detail).toMatch(/revoke some first/);
    await t.call("POST", `/wallet/keys/${first.id}/revoke`, { key: owner.key });
    const again = await t.call("POST", "/wallet/keys", {
      key: owner.key,
      body: { limit_cents: 100 },
    });
    expect(again.status).toBe(200);
  });

  it("pages clips with a cursor", async () => {
    t.clock.advance(60_000);
    const owner = await t.newWallet(10_000);
    for (let i = 0; i < 3; i++) {
      await t.call("POST", "/motion/jobs", {
        key: owner.key,
        body: { prompt: `w${i}`, content_type: "image/png" },
      });
      t.clock.advance(1000);
    }
    const first = await t.call("GET", "/motion/jobs?limit=2", { key: owner.key });
    expect(first.body.clips.map((c: { prompt: string }) => c.prompt)).toEqual(["w2", "w1"]);
    const second = await t.call("GET", `/motion/jobs?limit=2&cursor=${first.body.next_cursor}`, {
      key: owner.key,
    });
    expect(second.body.clips.map((c: { prompt: string }) => c.prompt)).toEqual(["w0"]);
    expect(second.body.next_cursor).toBeNull();
    expect((await t.call("GET", "/motion/jobs?cursor=nope", { key: owner.key })).status).toBe(400);
  });
});
