/**
 * The owner's threshold on the consent page, in real Chromium at a phone's width (390 px): "Ask
 * me before each purchase … only above $0.59" connects an app that buys a 59-cent clip with no
 * approval (above it, the same gate as an agent key's: test/approvals/threshold.test.ts); a
 * threshold that is not dollars is refused beside
 * the form and no app is connected; the app's own token cannot change its threshold.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { hasChromium, launchChromium } from "../browser.js";
import { stubClassifier } from "../clips/helpers.js";
import { call, type Json } from "../mcp/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { testOAuthClient } from "./oauth-client.js";

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

describe.skipIf(!hasChromium)("consent page: ask only above (390 px)", () => {
  it("connects an app that buys at or below the owner's threshold without asking", async () => {
    const owner = await s.t.newWallet(5000);
    const oauth = await testOAuthClient({ name: "Thrifty Assistant" });
    const first = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: oauth.provider });
    await expect(new Client({ name: "t", version: "1" }).connect(first)).rejects.toThrow(
      /[Uu]nauthorized/,
    );
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page: Page = await context.newPage();
    await page.goto(oauth.authorizationUrl().href);
    await page.fill("#wallet_key", owner.key);
    await page.click("button[value=signin]");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    // Not dollars: refused beside the form, what was typed kept, no app connected.
    await page.fill("#limit_dollars", "3.00");
    await page.fill("#ask_above_dollars", "cheap ones");
    await page.click("#allow");
    expect(await page.textContent("main")).toContain("Ask only above: give dollars");
    expect(await page.inputValue("#ask_above_dollars")).toBe("cheap ones");
    expect((await s.t.call("GET", "/wallet/keys", { key: owner.key })).body.keys).toEqual([]);

    await page.fill("#ask_above_dollars", "0.59");
    await page.click("#allow");
    const q = await oauth.callback();
    void page.close().catch(() => {});
    const code = q.get("code");
    if (!code) throw new Error(`no code: ${q.toString()}`);
    await first.finishAuth(code);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(mcpUrl(), { authProvider: oauth.provider }),
    );
    await client.listTools();
    const keys = (await s.t.call("GET", "/wallet/keys", { key: owner.key })).body.keys as Json[];
    expect(keys[0]).toMatchObject({
      kind: "connected_app",
      limit_cents: 300,
      ask_before_spending: true,
      ask_above_cents: 59,
    });
    const balance = await call(client, "get_balance");
    expect(balance.structuredContent.wallet.agent_key).toMatchObject({ ask_above_cents: 59 });

    // A 59-cent clip: bought with no approval.
    const clip = await call(client, "make_clip", { prompt: "waves", content_type: "image/png" });
    expect(clip.isError).toBeFalsy();
    expect((await s.t.call("GET", "/wallet", { key: owner.key })).body.wallet.balance_cents).toBe(
      5000 - 59,
    );
    const approvals = await s.t.deps.db
      .selectFrom("purchase_approvals")
      .select("id")
      .where("agent_key_id", "=", keys[0].id)
      .execute();
    expect(approvals).toEqual([]);

    // The app's own token is no key for the owner's routes: its threshold stays.
    const access = (oauth.tokens() as Json).access_token as string;
    const own = await fetch(`${s.url}/wallet/keys/${keys[0].id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${access}`, "content-type": "application/json" },
      body: JSON.stringify({ ask_above_cents: 300 }),
    });
    expect(own.status).toBe(401);
    const after = (await s.t.call("GET", "/wallet/keys", { key: owner.key })).body.keys as Json[];
    expect(after[0].ask_above_cents).toBe(59);
    await client.close();
    await context.close();
    await oauth.close();
  });
});
