/**
 * Connected apps end to end: the official MCP SDK client's OAuth flow (401 → discovery →
 * registration → authorize → consent in real Chromium → token → tools/call), once creating a
 * new balance and once signed in to a funded wallet; the app spends up to its limit; refresh
 * rotation and reuse detection; revocation from the keys list.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { hasChromium, launchChromium } from "../browser.js";
import { stubClassifier } from "../clips/helpers.js";
import { call, type Json, refusal } from "../mcp/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { type TestOAuthClient, testOAuthClient } from "./oauth-client.js";

let s: ServedApp;
let browser: Browser;

beforeAll(async () => {
  s = await serveTestApp({
    features: [
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
      paymentsFeature(),
      mcpFeature(),
      connectedAppsFeature(),
    ],
  });
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const mcpUrl = () => new URL(`${s.url}/mcp`);

/** Runs the SDK's flow up to the browser step; the consent is done by `consent(page)`. */
async function signIn(
  oauth: TestOAuthClient,
  context: BrowserContext,
  consent: (page: Page) => Promise<void>,
) {
  const first = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: oauth.provider });
  await expect(new Client({ name: "t", version: "1" }).connect(first)).rejects.toThrow(
    /[Uu]nauthorized/,
  );
  const page = await context.newPage();
  await page.goto(oauth.authorizationUrl().href);
  await consent(page);
  const q = await oauth.callback();
  // Not awaited: Chromium sometimes holds a page that just landed on a loopback callback for
  // ~60 s before closing it; the browser closes everything in afterAll.
  void page.close().catch(() => {});
  expect(q.get("iss")).toBe(s.url);
  expect(q.get("state")).toBe(oauth.authorizationUrl().searchParams.get("state"));
  const code = q.get("code");
  if (!code) throw new Error(`no code: ${q.toString()}`);
  await first.finishAuth(code);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl(), { authProvider: oauth.provider }),
  );
  // As every assistant does: from here on the SDK checks results against the output schemas.
  await client.listTools();
  return client;
}

async function allow(page: Page, dollars: string, trust = false) {
  await page.fill("#limit_dollars", dollars);
  if (trust) await page.check("input[value=trust]");
  await page.click("#allow");
}

describe.skipIf(!hasChromium)("connected apps (OAuth sign-in for MCP clients)", () => {
  it("signs in by creating a new balance: the key is shown once, the app connects", async () => {
    const oauth = await testOAuthClient({ name: "Brand New Assistant" });
    let shownKey = "";
    const client = await signIn(oauth, await browser.newContext(), async (page) => {
      expect(await page.textContent("h1")).toContain("Brand New Assistant");
      expect(await page.textContent("#redirect-host")).toBe(
        new URL(oauth.provider.redirectUrl as string).host,
      );
      await page.click("text=Create a new balance");
      shownKey = (await page.textContent("#wallet-key"))?.trim() ?? "";
      expect(shownKey).toMatch(/^pmk_/);
      await page.click("#continue");
      await allow(page, "2.50");
    });
    const balance = await call(client, "get_balance");
    expect(balance.structuredContent.wallet).toMatchObject({
      balance_cents: 0,
      agent_key: { kind: "connected_app", limit_cents: 250, ask_before_spending: true },
    });
    // The owner sees it in the keys list, marked as a connected app.
    const keys = await s.t.call("GET", "/wallet/keys", { key: shownKey });
    expect(keys.body.keys[0]).toMatchObject({
      kind: "connected_app",
      limit_cents: 250,
      connected_app: { client_name: "Brand New Assistant" },
    });
    await client.close();
    await oauth.close();
  });

  it("signs in to a funded wallet, spends up to the limit, then over_limit; refresh rotates; revocation stops it", async () => {
    const owner = await s.t.newWallet(5000);
    const oauth = await testOAuthClient({ name: "Funded Assistant" });
    // One browser: signed in once, it connects a second app without signing in again.
    const context = await browser.newContext();
    const client = await signIn(oauth, context, async (page) => {
      await page.fill("#wallet_key", owner.key);
      await page.click("button[value=signin]");
      expect(await page.textContent("main")).toContain(owner.walletId);
      await allow(page, "1.20", true);
    });
    expect(client.getInstructions()).toMatch(/agreed in advance/);
    const clip = () => call(client, "make_clip", { prompt: "waves", content_type: "image/png" });
    expect((await clip()).isError).toBeFalsy();
    expect((await clip()).isError).toBeFalsy();
    const third = await clip();
    expect(refusal(third)).toMatchObject({ over_limit: true, code: "over_limit" });
    expect((await s.t.call("GET", "/wallet", { key: owner.key })).body.wallet.balance_cents).toBe(
      5000 - 118,
    );

    // Refresh rotates the refresh token; presenting the old one again revokes the family.
    const before = oauth.tokens() as Json;
    const clientId = (await oauth.provider.clientInformation()) as Json;
    const refresh = (token: string) =>
      fetch(`${s.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: token,
          client_id: clientId.client_id,
          resource: `${s.url}/mcp`,
        }),
      });
    const rotated = await refresh(before.refresh_token);
    expect(rotated.status).toBe(200);
    const next = (await rotated.json()) as Json;
    expect(next.refresh_token).not.toBe(before.refresh_token);
    const reused = await refresh(before.refresh_token);
    expect(reused.status).toBe(400);
    expect(((await reused.json()) as Json).error).toBe("invalid_grant");
    const afterTheft = await refresh(next.refresh_token);
    expect(((await afterTheft.json()) as Json).error).toBe("invalid_grant");
    const stale = await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${next.access_token}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(stale.status).toBe(401);
    expect(stale.headers.get("www-authenticate")).toContain("resource_metadata=");

    // Revoking the connection from the keys list stops its tokens on the next request.
    const oauth2 = await testOAuthClient({ name: "To Be Revoked" });
    const client2 = await signIn(oauth2, context, async (page) => {
      await allow(page, "1.00");
    });
    expect((await call(client2, "get_balance")).isError).toBeFalsy();
    const keys = (await s.t.call("GET", "/wallet/keys", { key: owner.key })).body.keys as Json[];
    const app = keys.find((k) => k.connected_app?.client_name === "To Be Revoked");
    await s.t.call("POST", `/wallet/keys/${app.id}/revoke`, { key: owner.key });
    await expect(call(client2, "get_balance")).rejects.toThrow();
    const access = (oauth2.tokens() as Json).access_token as string;
    const after = await fetch(`${s.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${access}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(after.status).toBe(401);
    for (const c of [client, client2]) await c.close().catch(() => {});
    await oauth.close();
    await oauth2.close();
  });
});
