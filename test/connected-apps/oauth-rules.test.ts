/**
 * Every rule of the authorization server, tried the wrong way: unregistered redirects, missing
 * PKCE, wrong verifiers, wrong or missing resource, reused and expired codes, missing CSRF
 * tokens, bad registrations, rate limits, tokens used elsewhere, and the page's headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { createTestApp, TEST_PUBLIC_URL, type TestApp } from "../app.js";
import { authorizePath, browserless, pkce, registerClient } from "./browserless.js";

let t: TestApp;
const REDIRECT = "http://127.0.0.1:8765/callback";
const RESOURCE = `${TEST_PUBLIC_URL}/mcp`;
let clientId: string;

beforeAll(async () => {
  t = await createTestApp({
    features: [paymentsFeature(), mcpFeature(), connectedAppsFeature()],
    env: { RATE_LIMITS: "on", RATE_LIMIT_REGISTER_PER_HOUR: "15", RATE_LIMIT_SIGNIN_PER_MIN: "5" },
  });
  clientId = (await registerClient(t, [REDIRECT, "com.example.app:/cb"])).body.client_id;
});
afterAll(async () => {
  await t.close();
});

const goodParams = (challenge: string, extra: Record<string, string | undefined> = {}) => ({
  response_type: "code",
  client_id: clientId,
  redirect_uri: REDIRECT,
  code_challenge: challenge,
  code_challenge_method: "S256",
  state: "st-1",
  resource: RESOURCE,
  ...extra,
});

/** Consent by a new balance through the forms; the redirect's query. */
async function authorize(challenge: string, extra: Record<string, string | undefined> = {}) {
  const b = browserless(t);
  const page = await b.get(authorizePath(goodParams(challenge, extra)));
  expect(page.status).toBe(200);
  const created = await b.post("/oauth/authorize", {
    ...b.fields(await page.text()),
    action: "create",
  });
  expect(created.status).toBe(200);
  const again = await b.get(authorizePath(goodParams(challenge, extra)));
  const decided = await b.post("/oauth/authorize", {
    ...b.fields(await again.text()),
    action: "allow",
    limit_dollars: "3",
    spending: "ask",
  });
  expect(decided.status).toBe(302);
  return new URL(decided.headers.get("location") as string).searchParams;
}

const token = (params: Record<string, string>) =>
  t.app.request("/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params).toString(),
  });

describe("discovery", () => {
  it("publishes protected-resource and authorization-server metadata", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
    ]) {
      const res = await t.call("GET", path);
      expect(res.body).toMatchObject({
        resource: RESOURCE,
        authorization_servers: [TEST_PUBLIC_URL],
      });
    }
    const as = (await t.call("GET", "/.well-known/oauth-authorization-server")).body;
    expect(as).toMatchObject({
      issuer: TEST_PUBLIC_URL,
      code_challenge_methods_supported: ["S256"],
      client_id_metadata_document_supported: true,
      token_endpoint_auth_methods_supported: ["none"],
    });
    for (const e of [
      "authorization_endpoint",
      "token_endpoint",
      "registration_endpoint",
      "revocation_endpoint",
    ]) {
      expect(as[e]).toMatch(/^http:\/\/kinora\.test\/oauth\//);
    }
  });
});

describe("registration", () => {
  it("refuses dangerous or unusable redirect URIs and confidential clients", async () => {
    for (const uri of [
      "javascript:alert(1)",
      "data:text/html,hi",
      "file:///etc/passwd",
      "http://example.com/cb",
      "https://example.com/cb#frag",
      "https://user:pw@example.com/cb",
      "notaurl",
      "myapp:/cb",
    ]) {
      const res = await registerClient(t, [uri]);
      expect(res.status, uri).toBe(400);
      expect(res.body.error, uri).toBe("invalid_redirect_uri");
    }
    const secretClient = await t.call("POST", "/oauth/register", {
      body: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" },
    });
    expect(secretClient.body.error).toBe("invalid_client_metadata");
    const many = await registerClient(
      t,
      Array.from({ length: 11 }, (_, i) => `https://a.example/cb${i}`),
    );
    expect(many.body.error).toBe("invalid_redirect_uri");
  });

  it("is rate-limited per address with 429, Retry-After and RateLimit headers", async () => {
    let last = await registerClient(t, ["https://ok.example/cb"]);
    for (let i = 0; i < 10 && last.status !== 429; i++)
      last = await registerClient(t, ["https://ok.example/cb"]);
    expect(last.status).toBe(429);
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(last.headers.get("ratelimit-limit")).toBe("15");
  });
});

describe("the authorization endpoint", () => {
  it("shows an error page, never a redirect, for an unknown client or an unregistered redirect", async () => {
    const { challenge } = pkce();
    for (const params of [
      goodParams(challenge, { client_id: "app_nobody" }),
      goodParams(challenge, { redirect_uri: "http://127.0.0.1:8765/elsewhere" }),
      goodParams(challenge, { redirect_uri: "https://evil.example/cb" }),
      goodParams(challenge, { client_id: undefined }),
    ]) {
      const res = await t.app.request(authorizePath(params));
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(await res.text()).toContain("cannot connect");
    }
  });

  it("accepts a loopback redirect on any port, as RFC 8252 asks", async () => {
    const { challenge } = pkce();
    const res = await t.app.request(
      authorizePath(goodParams(challenge, { redirect_uri: "http://127.0.0.1:9999/callback" })),
    );
    expect(res.status).toBe(200);
  });

  it("shows request errors on a page whose return link carries the error, state and iss", async () => {
    const { challenge } = pkce();
    const cases: [Record<string, string | undefined>, string][] = [
      [{ code_challenge: undefined }, "invalid_request"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ resource: undefined }, "invalid_target"],
      [{ resource: "http://kinora.test/wallet" }, "invalid_target"],
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ scope: "admin" }, "invalid_scope"],
    ];
    for (const [extra, error] of cases) {
      const res = await t.app.request(authorizePath(goodParams(challenge, extra)));
      expect(res.status, error).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      const href = /id="return" href="([^"]*)"/.exec(await res.text())?.[1] ?? "";
      const q = new URL(href.replaceAll("&amp;", "&")).searchParams;
      expect(q.get("error"), JSON.stringify(extra)).toBe(error);
      expect(q.get("state")).toBe("st-1");
      expect(q.get("iss")).toBe(TEST_PUBLIC_URL);
    }
  });

  it("refuses a form without this browser's CSRF token, and sends no-framing headers", async () => {
    const { challenge } = pkce();
    const b = browserless(t);
    const page = await b.get(authorizePath(goodParams(challenge)));
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const { req } = b.fields(await page.text());
    expect((await b.post("/oauth/authorize", { req, action: "create" })).status).toBe(403);
    expect(
      (await b.post("/oauth/authorize", { req, action: "create", csrf: "forged" })).status,
    ).toBe(403);
    // Another browser's valid token is not this browser's.
    const other = browserless(t);
    const otherPage = await other.get(authorizePath(goodParams(challenge)));
    const stolen = other.fields(await otherPage.text()).csrf;
    expect((await b.post("/oauth/authorize", { req, action: "create", csrf: stolen })).status).toBe(
      403,
    );
  });

  it("counts a new balance made on the consent page against POST /wallet's per-address limit", async () => {
    t.clock.advance(60_000); // a fresh minute: earlier tests made balances too
    try {
      for (let i = 0; i < 30; i++) {
        expect((await t.call("POST", "/wallet", { body: {} })).status).toBe(200);
      }
      const { challenge } = pkce();
      const b = browserless(t);
      const page = await b.get(authorizePath(goodParams(challenge)));
      const refused = await b.post("/oauth/authorize", {
        ...b.fields(await page.text()),
        action: "create",
      });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      t.clock.advance(60_000); // and a fresh one for the tests after this
    }
  });

  it("says Deny to the client as access_denied", async () => {
    const { challenge } = pkce();
    const b = browserless(t);
    const page = await b.get(authorizePath(goodParams(challenge)));
    const res = await b.post("/oauth/authorize", {
      ...b.fields(await page.text()),
      action: "deny",
    });
    expect(res.status).toBe(302);
    const q = new URL(res.headers.get("location") as string).searchParams;
    expect(q.get("error")).toBe("access_denied");
    expect(q.get("state")).toBe("st-1");
  });

  it("limits sign-in attempts per address", async () => {
    const { challenge } = pkce();
    const b = browserless(t);
    const page = await b.get(authorizePath(goodParams(challenge)));
    const fields = b.fields(await page.text());
    let status = 0;
    for (let i = 0; i < 8 && status !== 429; i++) {
      status = (
        await b.post("/oauth/authorize", { ...fields, action: "signin", wallet_key: "pmk_wrong" })
      ).status;
    }
    expect(status).toBe(429);
    // A fresh minute: failed key guesses from this address share the sign-in bucket.
    t.clock.advance(60_000);
  });
});

describe("the token endpoint", () => {
  it("exchanges a code once, with the right verifier, redirect, client and resource", async () => {
    const { verifier, challenge } = pkce();
    const q = await authorize(challenge);
    const code = q.get("code") as string;
    const base = {
      grant_type: "authorization_code",
      code,
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      resource: RESOURCE,
    };
    const ok = await token(base);
    expect(ok.status).toBe(200);
    const tokens = (await ok.json()) as Record<string, string | number>;
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "mcp" });
    expect(ok.headers.get("cache-control")).toBe("no-store");
    // Reuse: refused, and what the first exchange issued stops working.
    const reuse = await token(base);
    expect(((await reuse.json()) as { error: string }).error).toBe("invalid_grant");
    const mcp = await t.app.request("/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(401);
  });

  it("refuses a wrong verifier, redirect, client or resource, and a missing resource", async () => {
    for (const [change, error] of [
      [{ code_verifier: pkce().verifier }, "invalid_grant"],
      [{ redirect_uri: "http://127.0.0.1:8765/other" }, "invalid_grant"],
      [{ client_id: "app_someoneelse" }, "invalid_grant"],
      [{ resource: `${TEST_PUBLIC_URL}/other` }, "invalid_target"],
      [{ resource: "" }, "invalid_target"],
      [{ code_verifier: "short" }, "invalid_request"],
    ] as const) {
      const { verifier, challenge } = pkce();
      const q = await authorize(challenge);
      const params: Record<string, string> = {
        grant_type: "authorization_code",
        code: q.get("code") as string,
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        resource: RESOURCE,
      };
      const res = await token(Object.assign(params, change));
      expect(((await res.json()) as { error: string }).error, JSON.stringify(change)).toBe(error);
    }
  });

  it("refuses an expired code (codes live 60 seconds)", async () => {
    const { verifier, challenge } = pkce();
    const q = await authorize(challenge);
    t.clock.advance(61_000);
    try {
      const res = await token({
        grant_type: "authorization_code",
        code: q.get("code") as string,
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        resource: RESOURCE,
      });
      expect(((await res.json()) as { error_description: string }).error_description).toMatch(
        /expired/,
      );
    } finally {
      t.clock.advance(-61_000);
    }
  });

  it("issues tokens good only at /mcp: the REST API refuses them", async () => {
    const { verifier, challenge } = pkce();
    const q = await authorize(challenge);
    const res = await token({
      grant_type: "authorization_code",
      code: q.get("code") as string,
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      resource: RESOURCE,
    });
    const { access_token } = (await res.json()) as { access_token: string };
    expect((await t.call("GET", "/wallet", { key: access_token })).status).toBe(401);
    const revoke = await t.app.request("/oauth/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: access_token, client_id: clientId }).toString(),
    });
    expect(revoke.status).toBe(200);
  });
});
