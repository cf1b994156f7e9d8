/**
 * OAuth access tokens only in the Authorization header (issue 21, item 3), over real HTTP with
 * a real token from the token endpoint: the header works, `/mcp?key=kat_…` is refused with 400
 * key_in_url before any lookup, and an agent key in `?key=` still works (the spec allows it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { createCode } from "../../src/oauth/tokens.js";
import { createConnectedApp } from "../../src/services/agent-keys.js";
import { pkce } from "../connected-apps/browserless.js";
import { type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
beforeAll(async () => {
  s = await serveTestApp({ features: [mcpFeature(), connectedAppsFeature()] });
});
afterAll(async () => {
  await s?.close();
});

const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

async function mcp(query: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}/mcp${query}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...headers,
    },
    body: LIST,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("a connected app's access token", () => {
  it("works in the header and is refused in ?key=; an agent key in ?key= still works", async () => {
    const { key: pmk, walletId } = await s.t.newWallet(0);
    const redirectUri = "http://127.0.0.1:9/callback";
    const reg = await fetch(`${s.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "URL", redirect_uris: [redirectUri] }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const app = await createConnectedApp(s.t.deps, walletId, {
      clientId,
      clientName: "URL",
      redirectHost: "127.0.0.1",
      limitCents: 100,
      askBeforeSpending: true,
    });
    const { verifier, challenge } = pkce();
    const code = await createCode(s.t.deps, {
      clientId,
      agentKeyId: app.id,
      redirectUri,
      codeChallenge: challenge,
      resource: `${s.url}/mcp`,
    });
    const tokenRes = await fetch(`${s.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: clientId,
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        resource: `${s.url}/mcp`,
      }),
    });
    const kat = ((await tokenRes.json()) as { access_token: string }).access_token;
    expect(kat).toMatch(/^kat_/);

    expect((await mcp("", { authorization: `Bearer ${kat}` })).status).toBe(200);
    const inUrl = await mcp(`?key=${kat}`);
    expect(inUrl.status).toBe(400);
    expect(inUrl.body.code).toBe("key_in_url");
    const encoded = await mcp(`?key=${encodeURIComponent(kat).replace("_", "%5F")}`);
    expect(encoded.status).toBe(400);
    expect(encoded.body.code).toBe("key_in_url");

    const { key: pak } = await s.t.newAgentKey(pmk, 100);
    expect((await mcp(`?key=${pak}`)).status).toBe(200);
  });
});
