/**
 * The fuzzer's deep bodies (./generate.ts DEEP_BODIES: 5,000 levels of arrays, of objects, and
 * a field holding them) sent to every operation in /openapi.json with every credential, and as
 * the arguments of every MCP tool with an agent key (and with the wallet key and none, which the
 * MCP endpoint turns away first). A walk that
 * recursed over the input overflowed the stack on them (500 on every operation, `internal`
 * over MCP); now each is refused before anything runs — 400 `invalid_request` saying how deep
 * input may go, or the 401/403 a caller without the right key gets first — and nothing changes.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEATURES } from "../../src/features.js";
import { ADMIN_TOKEN, createTestApp, type TestApp } from "../app.js";
import { onPostgres } from "../db.js";
import { DEEP_BODIES, type Schema } from "./generate.js";

const WORKER_TOKEN = "fuzz-worker-token-0123456789";
const TOO_DEEP = /nested more than 64 levels deep/;

let t: TestApp;
let doc: Schema;
const creds: Record<string, string | undefined> = { none: undefined };
const own: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp({ features: FEATURES, env: { WORKER_TOKEN } });
  doc = (await t.call("GET", "/openapi.json")).body;
  const me = await t.newWallet(50_000);
  const agent = await t.newAgentKey(me.key, 5_000, { askBeforeSpending: false });
  Object.assign(creds, {
    wallet: me.key,
    agent: agent.key,
    admin: ADMIN_TOKEN,
    worker: WORKER_TOKEN,
  });
  const job = await t.call("POST", "/cloud/jobs", {
    key: agent.key,
    body: { duration_sec: 30, filename: "a.mp4", content_type: "video/mp4", size: 1000 },
  });
  const clip = await t.call("POST", "/motion/jobs", {
    key: agent.key,
    body: { prompt: "waves", content_type: "image/png", image_bytes: 100 },
  });
  Object.assign(own, {
    wal: me.walletId,
    key: agent.id,
    rj: job.body.job.id,
    clip: clip.body.job.id,
  });
});
afterAll(async () => {
  await t.close();
});

/** Money and rows: compared before and after every deep request. */
async function snapshot() {
  const r = await sql<Record<string, number>>`SELECT
    (SELECT COALESCE(SUM(balance_cents), 0) FROM wallets) AS balances,
    (SELECT COALESCE(SUM(spent_cents), 0) FROM agent_keys) AS spent,
    (SELECT count(*) FROM ledger_entries) AS entries,
    (SELECT count(*) FROM wallets) AS wallets,
    (SELECT count(*) FROM agent_keys) AS keys,
    (SELECT count(*) FROM restore_jobs) AS jobs,
    (SELECT count(*) FROM clips) AS clips,
    (SELECT count(*) FROM oauth_clients) AS apps`.execute(t.deps.db);
  return r.rows[0];
}

/** A real id of the caller's own for each path parameter, so the body is what gets read. */
function pathOf(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (/clip/i.test(name) || path.startsWith("/motion")) return own.clip as string;
    if (path.startsWith("/wallet/keys")) return own.key as string;
    if (path.startsWith("/admin/wallets")) return own.wal as string;
    return own.rj as string;
  });
}

/** The operations that take a body: every POST, PUT and PATCH in the document. */
const withBodies = () =>
  Object.entries<Record<string, Schema>>(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => ["post", "put", "patch"].includes(m))
      .map((method) => ({ method: method.toUpperCase(), path, op: item[method] as Schema })),
  );

describe(`5,000 levels deep, every operation (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  it("refuses the deep bodies on every REST operation, anonymous or keyed: 400 or the auth answer, never 500", async () => {
    const refusedForDepth = new Set<string>();
    for (const { method, path, op } of withBodies()) {
      if (path === "/mcp") continue; // JSON-RPC: the tools are called below.
      const before = await snapshot();
      for (const [cred, secret] of Object.entries(creds)) {
        for (const [shape, body] of Object.entries(DEEP_BODIES)) {
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (secret) headers.authorization = `Bearer ${secret}`;
          const res = await t.app.request(pathOf(path), { method, headers, body });
          const text = await res.text();
          const where = `${method} ${path} as ${cred} (${shape}) → ${res.status} ${text.slice(0, 200)}`;
          expect(res.status, where).toBeLessThan(500);
          expect([400, 401, 403, 404], where).toContain(res.status);
          const answer = JSON.parse(text) as { code?: string; detail?: string };
          if (res.status === 400 && op.requestBody?.content?.["application/json"]) {
            expect(answer.code, where).toBe("invalid_request");
            expect(answer.detail, where).toMatch(TOO_DEEP);
            refusedForDepth.add(`${method} ${path}`);
          }
        }
      }
      expect(await snapshot(), `${method} ${path} changed something`).toEqual(before);
    }
    // Each operation with a JSON body met a caller it lets in at least once, and refused the
    // depth then (not some other problem).
    const json = withBodies().filter(
      (o) => o.path !== "/mcp" && o.op.requestBody?.content?.["application/json"],
    );
    expect(json.length).toBeGreaterThan(15);
    expect(json.map((o) => `${o.method} ${o.path}`).filter((k) => !refusedForDepth.has(k))).toEqual(
      [],
    );
  }, 240_000);

  it("answers a tool call with deep arguments as a tool error with the same body, on every tool", async () => {
    const list = await t.call("POST", "/mcp", {
      key: creds.agent,
      headers: { accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    const tools = (list.body.result.tools as { name: string }[]).map((tool) => tool.name);
    expect(tools.length).toBeGreaterThan(10);
    const before = await snapshot();
    for (const cred of ["agent", "wallet", "none"] as const) {
      for (const name of tools) {
        for (const [shape, deep] of Object.entries(DEEP_BODIES)) {
          // Built as text: the test's own JSON.stringify would overflow on the deep value.
          const body = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":{"x":${deep}}}}`;
          const headers: Record<string, string> = {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          };
          const secret = creds[cred];
          if (secret) headers.authorization = `Bearer ${secret}`;
          const res = await t.app.request("/mcp", { method: "POST", headers, body });
          const text = await res.text();
          const where = `${name} as ${cred} (${shape}) → ${res.status} ${text.slice(0, 300)}`;
          expect(res.status, where).toBeLessThan(500);
          // MCP is for agent keys: no key is a 401, the wallet key a 403, before any tool runs.
          if (cred !== "agent") {
            expect(res.status, where).toBe(cred === "none" ? 401 : 403);
          } else {
            const result = JSON.parse(text).result;
            expect(result?.isError, where).toBe(true);
            expect(result.structuredContent, where).toBeUndefined();
            const refusal = JSON.parse(result.content[0].text);
            expect(refusal, where).toMatchObject({ code: "invalid_request" });
            expect(refusal.detail, where).toMatch(TOO_DEEP);
            expect(typeof refusal.request_id, where).toBe("string");
          }
        }
      }
    }
    expect(await snapshot(), "a deep tool call changed something").toEqual(before);
  }, 240_000);

  it("refuses a deep x402 payment in a tool call's _meta the same way", async () => {
    const deep = DEEP_BODIES.arrays;
    const body = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"top_up_with_usdc","arguments":{"amount_cents":500},"_meta":{"x402/payment":{"payload":${deep}}}}}`;
    const res = await t.app.request("/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${creds.agent}`,
      },
      body,
    });
    const result = (await res.json()).result;
    expect(result.isError).toBe(true);
    const refusal = JSON.parse(result.content[0].text);
    expect(refusal.code).toBe("invalid_request");
    expect(refusal.detail).toMatch(/x402 payment .* nested more than 64 levels deep/);
  });
});
