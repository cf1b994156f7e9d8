/**
 * The OpenAPI document lists the statuses a fuzzer sees (issue 21, item 10, its REST half),
 * over real HTTP: an oversized body to every POST in the document answers 413 and every one
 * documents it; a keyed call reusing an Idempotency-Key with another request answers 409 and
 * every keyed POST taking the header documents it (unauthenticated ones never store, so never
 * 409 for it); /mcp answers 202 for a notification and 415 for a non-JSON type, both documented.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JSON_BODY_MAX_BYTES } from "../../src/domain/limits.js";
import { FEATURES } from "../../src/features.js";
import { ADMIN_TOKEN } from "../app.js";
import { type ServedApp, serveTestApp } from "../served.js";

const WORKER_TOKEN = "worker-token-for-openapi-0123";
let s: ServedApp;
// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
let doc: any;
let walletKey = "";
let agentKey = "";

beforeAll(async () => {
  s = await serveTestApp({ features: FEATURES, env: { WORKER_TOKEN } });
  doc = await (await fetch(`${s.url}/openapi.json`)).json();
  walletKey = (await s.t.newWallet(0)).key;
  agentKey = (await s.t.newAgentKey(walletKey, 100)).key;
});
afterAll(async () => {
  await s?.close();
});

type Op = {
  responses: Record<string, unknown>;
  security?: Record<string, unknown>[];
  parameters?: { name: string }[];
};
const posts = (): [string, Op][] =>
  Object.entries<Record<string, Op>>(doc.paths).flatMap(([p, item]) =>
    item.post ? [[p, item.post] as [string, Op]] : [],
  );

function authFor(path: string): string {
  if (path.startsWith("/admin/")) return `Bearer ${ADMIN_TOKEN}`;
  if (path.startsWith("/worker/")) return `Bearer ${WORKER_TOKEN}`;
  if (path === "/mcp") return `Bearer ${agentKey}`;
  return `Bearer ${walletKey}`;
}

describe("the OpenAPI document and the statuses the server answers", () => {
  it("every POST documents 413, and an oversized body to each answers it", async () => {
    const big = JSON.stringify({ pad: "x".repeat(JSON_BODY_MAX_BYTES + 10) });
    const seen: string[] = [];
    for (const [path, op] of posts()) {
      expect(Object.keys(op.responses), path).toContain("413");
      const url = `${s.url}${path.replace(/\{[^}]+\}/g, "rj_0000000000000000000000")}`;
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: authFor(path) },
        body: big,
      });
      await res.arrayBuffer();
      seen.push(`${path} ${res.status}`);
      expect(Object.keys(op.responses), `${path} answered ${res.status}`).toContain(
        String(res.status),
      );
    }
    expect(seen.filter((line) => line.endsWith(" 413"))).toHaveLength(posts().length);
    console.log(`openapi: ${posts().length} POST operations, all 413 on an oversized body`);
  });

  it("keyed POSTs that take Idempotency-Key document 409, and a reused key answers it", async () => {
    const takesKey = (op: Op) => op.parameters?.some((p) => p.name === "Idempotency-Key");
    const keyed = (op: Op) => op.security?.some((x) => "bearer" in x || "admin" in x);
    const missing = posts()
      .filter(([, op]) => takesKey(op) && keyed(op) && !("409" in op.responses))
      .map(([p]) => p);
    expect(missing).toEqual([]);
    const send = (limit: number) =>
      fetch(`${s.url}/wallet/keys`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${walletKey}`,
          "idempotency-key": "openapi-reuse",
        },
        body: JSON.stringify({ limit_cents: limit }),
      });
    expect((await send(5)).status).toBe(200);
    const reused = await send(6);
    expect(reused.status).toBe(409);
    expect(((await reused.json()) as { code: string }).code).toBe("idempotency_key_reused");
    expect(doc.paths["/wallet/keys"].post.responses).toHaveProperty("409");
  });

  it("/mcp documents the 202 and 415 it answers", async () => {
    const mcp = doc.paths["/mcp"].post.responses;
    const post = (body: string, type: string) =>
      fetch(`${s.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": type,
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
          authorization: `Bearer ${agentKey}`,
        },
        body,
      });
    const note = await post(
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      "application/json",
    );
    expect(note.status).toBe(202);
    const typed = await post("{}", "text/plain");
    expect(typed.status).toBe(415);
    for (const status of ["200", "202", "400", "401", "413", "415"]) {
      expect(Object.keys(mcp)).toContain(status);
    }
  });
});
