/**
 * /mcp's transport edges in raw JSON-RPC, where an SDK client would hide them: Host, Origin and CORS,
 * batches per revision, version negotiation in both eras, GET/DELETE, JSON-only and SSE
 * clients, content types, tokens in the URL, and the multi-round requestState.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { mintRequestState } from "../../src/mcp/request-state.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { INIT, type Json, modern, rpc } from "./helpers.js";

const INSPECTOR = "http://localhost:6274";

let s: ServedApp;
let key: string;
let keyId: string;
let auth: Record<string, string>;
beforeAll(async () => {
  s = await serveTestApp({
    env: { MCP_ALLOWED_ORIGINS: `${INSPECTOR},https://app.example` },
    features: [paymentsFeature(), mcpFeature()],
  });
  const owner = await s.t.newWallet(1000);
  ({ key, id: keyId } = await s.t.newAgentKey(owner.key, 500, { askBeforeSpending: true }));
  auth = { authorization: `Bearer ${key}` };
});
afterAll(async () => {
  await s.close();
});

const balance = (id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "get_balance", arguments: {} },
});

/** A POST whose Host header says what a browser on a rebound name would send (fetch cannot). */
function withHost(host: string, headers: Record<string, string>, method = "POST") {
  const url = new URL(`${s.url}/mcp`);
  return new Promise<{ status: number; body: Json }>((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method,
        setHost: false,
        headers: {
          host,
          "content-type": "application/json",
          accept: "application/json",
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }),
        );
      },
    );
    req.on("error", reject);
    req.end(method === "POST" ? JSON.stringify(balance()) : undefined);
  });
}

describe("Host", () => {
  it("refuses a foreign Host with no Origin (DNS rebinding) with 403 and a JSON-RPC error, before the key is read", async () => {
    for (const host of [
      "evil.example",
      "evil.example:8080",
      "kinora.test.evil.example",
      "10.0.0.5",
    ]) {
      const res = await withHost(host, auth);
      expect(res.status, host).toBe(403);
      expect(res.body.jsonrpc).toBe("2.0");
      expect(res.body.error.code).toBe(-32000);
      expect(res.body.error.message).toMatch(/^Invalid Host: /);
      expect(res.body.error.message).toMatch(/PUBLIC_URL or a loopback name/);
      expect(res.body.id).toBeNull();
    }
    // Without a key too: nothing about the key is said to a rebound page.
    expect((await withHost("evil.example", {})).status).toBe(403);
    expect((await withHost("evil.example", auth, "OPTIONS")).status).toBe(403);
    expect((await withHost("evil.example", auth, "GET")).status).toBe(403);
  });

  it("serves PUBLIC_URL's host and the loopback names, on any port", async () => {
    const port = new URL(s.url).port;
    for (const host of [
      new URL(s.url).host,
      `localhost:${port}`,
      "LOCALHOST",
      `[::1]:${port}`,
      "127.0.0.1",
    ]) {
      const res = await withHost(host, auth);
      expect(res.status, host).toBe(200);
      expect(res.body.result.structuredContent.wallet.agent_key.id).toBe(keyId);
    }
  });
});

describe("Origin", () => {
  it("refuses a page from another origin with 403 before anything else, a missing key included", async () => {
    for (const origin of ["https://evil.example", "http://127.0.0.1:1", "null"]) {
      const res = await rpc(s.url, INIT, { origin });
      expect(res.status, origin).toBe(403);
      expect(res.body.code).toBe("forbidden");
      expect(res.body.detail).toMatch(/MCP_ALLOWED_ORIGINS/);
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("serves PUBLIC_URL's origin and the listed ones with CORS headers, the 401 challenge readable", async () => {
    for (const origin of [s.url, INSPECTOR]) {
      const res = await rpc(s.url, INIT, { ...auth, origin });
      expect(res.status, origin).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      expect(res.headers.get("vary")).toMatch(/Origin/);
    }
    const anonymous = await rpc(s.url, INIT, { origin: INSPECTOR });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("access-control-allow-origin")).toBe(INSPECTOR);
    expect(anonymous.headers.get("access-control-expose-headers")).toMatch(/WWW-Authenticate/);
    expect(anonymous.headers.get("access-control-expose-headers")).not.toMatch(/Mcp-Session-Id/);
  });

  it("answers the CORS preflight for allowed origins only", async () => {
    const preflight = (origin?: string) =>
      fetch(`${s.url}/mcp`, {
        method: "OPTIONS",
        headers: {
          ...(origin ? { origin } : {}),
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
        },
      });
    const ok = await preflight("https://app.example");
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(ok.headers.get("access-control-allow-methods")).toBe("POST");
    const allowed = ok.headers.get("access-control-allow-headers") ?? "";
    for (const h of ["Authorization", "Content-Type", "Mcp-Protocol-Version", "Mcp-Method"]) {
      expect(allowed).toContain(h);
    }
    expect((await preflight("https://evil.example")).status).toBe(403);
    const plain = await preflight();
    expect(plain.status).toBe(204);
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("batches", () => {
  it("serves them on 2025-03-26 (named or assumed) and refuses them where they were removed", async () => {
    const batch = [balance(1), { jsonrpc: "2.0", id: 2, method: "tools/list" }];
    for (const version of [
      { "mcp-protocol-version": "2025-03-26" },
      {} as Record<string, string>,
    ]) {
      const res = await rpc(s.url, batch, { ...auth, ...version });
      expect(res.status).toBe(200);
      expect(res.body.map((r: Json) => r.id).sort()).toEqual([1, 2]);
    }
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const res = await rpc(s.url, batch, { ...auth, "mcp-protocol-version": version });
      expect(res.status, version).toBe(400);
      expect(res.body.error.code).toBe(-32600);
      expect(res.body.error.message).toMatch(/batches were removed in protocol version 2025-06-18/);
    }
    const m = modern("tools/list");
    const res = await rpc(s.url, [m.body], { ...auth, ...m.headers });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32600);
  });
});

describe("versions", () => {
  it("echoes each 2025-era version at initialize and answers a newer one with the latest", async () => {
    const init = (protocolVersion: string) =>
      rpc(s.url, { ...INIT, params: { ...INIT.params, protocolVersion } }, auth);
    for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
      expect((await init(version)).body.result.protocolVersion, version).toBe(version);
    }
    for (const newer of ["2026-07-28", "2099-01-01"]) {
      expect((await init(newer)).body.result.protocolVersion, newer).toBe("2025-11-25");
    }
  });

  it("answers 2026-07-28 discovery, and an unknown revision in the envelope with the supported list", async () => {
    const discover = modern("server/discover");
    const found = await rpc(s.url, discover.body, { ...auth, ...discover.headers });
    expect(found.body.result.supportedVersions).toEqual(["2026-07-28"]);
    expect(found.body.result.instructions).toMatch(/NOT agreed in advance/);
    const future = modern("tools/list", {}, { version: "2099-01-01" });
    const res = await rpc(s.url, future.body, { ...auth, ...future.headers });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32022);
    expect(res.body.error.data.supported).toEqual(["2026-07-28"]);
  });

  it("refuses a 2025-era call naming a version it does not know", async () => {
    const res = await rpc(s.url, balance(), { ...auth, "mcp-protocol-version": "2024-01-01" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBeDefined();
  });
});

describe("HTTP", () => {
  it("answers GET and DELETE with 405, Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const r = await fetch(`${s.url}/mcp`, { method, headers: auth });
      expect(r.status).toBe(405);
      expect(r.headers.get("allow")).toBe("POST");
      expect((await r.json()).code).toBe("method_not_allowed");
    }
  });

  it("answers JSON-only clients in JSON, in both eras", async () => {
    const legacy = await rpc(s.url, INIT, { ...auth, accept: "application/json" });
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get("content-type")).toMatch(/^application\/json/);
    expect(legacy.body.result.serverInfo.name).toBe("kinora");
    const m = modern("tools/list");
    const listed = await rpc(s.url, m.body, { ...auth, ...m.headers, accept: "application/json" });
    expect(listed.headers.get("content-type")).toMatch(/^application\/json/);
    expect(listed.body.result.tools.length).toBeGreaterThan(0);
  });

  it("streams SSE only to a client that reads it and asked for progress", async () => {
    const asking = { ...balance(), params: { ...balance().params, _meta: { progressToken: 9 } } };
    const both = "application/json, text/event-stream";
    const sse = await rpc(s.url, asking, { ...auth, accept: both });
    expect(sse.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const event = JSON.parse(
      sse.text
        .split("\n")
        .find((l) => l.startsWith("data: "))
        ?.slice(6) ?? "",
    );
    expect(event.result.structuredContent.wallet.balance_cents).toBe(1000);
    const json = await rpc(s.url, asking, { ...auth, accept: "application/json" });
    expect(json.body.result.structuredContent.wallet.balance_cents).toBe(1000);
    const plain = await rpc(s.url, balance(), { ...auth, accept: both });
    expect(plain.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("refuses what is not JSON: 415 for another content type, -32700 for broken JSON", async () => {
    const typed = await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers: { ...auth, "content-type": "text/plain" },
      body: JSON.stringify(INIT),
    });
    expect(typed.status).toBe(415);
    for (const body of ["{not json", ""]) {
      const res = await rpc(s.url, body, auth);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(-32700);
    }
  });

  it("refuses an OAuth access token in the URL with 400, before looking it up", async () => {
    const res = await rpc(s.url, INIT, {}, `?key=kat_${"x".repeat(40)}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("key_in_url");
    expect(res.body.detail).toMatch(/only in the header/);
  });
});

describe("requestState (2026-07-28 multi-round requests)", () => {
  const withState = (requestState: string) =>
    modern("tools/call", { name: "get_balance", arguments: {}, requestState });

  it("refuses a forged state, and a state minted for another key, before the tool runs", async () => {
    const other = mintRequestState(s.t.platform.signer, "key_someoneelse", {}, Date.now());
    for (const state of ["forged", `${other.slice(0, -2)}xx`, other]) {
      const m = withState(state);
      const res = await rpc(s.url, m.body, { ...auth, ...m.headers });
      expect(res.body.error?.code, state).toBe(-32602);
      expect(res.body.error.message).toBe("Invalid or expired requestState");
    }
  });

  it("lets this key's own state through", async () => {
    const mine = mintRequestState(s.t.platform.signer, keyId, { step: 1 }, Date.now());
    const m = withState(mine);
    const res = await rpc(s.url, m.body, { ...auth, ...m.headers });
    expect(res.body.result.structuredContent.wallet.balance_cents).toBe(1000);
  });
});
