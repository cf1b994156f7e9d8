/**
 * Names an app gives itself are shown inert (issue 21, item 4), in Chromium: a registration
 * whose name holds a bidirectional control is refused naming client_name (as every field a
 * caller sends is, issue 34); one with zero-width and other format characters and an overlong
 * name shows on the consent page without any of them, capped, inside <bdi>, and the page's own
 * "returns to <host>" line is untouched; the console and the API (what the CLI prints) show a
 * connected app's name the same way, also one stored before the rules, overrides and all.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { consoleFeature } from "../../src/features/console.js";
import { CLIENT_NAME_MAX } from "../../src/oauth/clients.js";
import { createConnectedApp } from "../../src/services/agent-keys.js";
import { hasChromium, launchChromium } from "../browser.js";
import { pkce } from "../connected-apps/browserless.js";
import { type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
let browser: Browser;
let callback: Server;
let redirectUri = "";

beforeAll(async () => {
  s = await serveTestApp({ features: [consoleFeature(), connectedAppsFeature()] });
  callback = createServer((_q, res) => res.end("ok"));
  await new Promise<void>((r) => callback.listen(0, "127.0.0.1", r));
  redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  callback?.closeAllConnections();
  await new Promise((r) => callback?.close(r));
  await s?.close();
});

// Right-to-left override, isolates, zero-width space and joiner, BOM, a tag character, a
// line separator, a Hangul filler, and far too long.
const HOSTILE = `\u202Egnp.exe\u202C Kinora\u2066 Official\u2069\u200B\u200D\uFEFF\u{E0041}\u2028\u3164 ${"x".repeat(300)}`;
/** The same without the bidirectional controls, which registration refuses outright. */
const INVISIBLE_ONLY = HOSTILE.replace(/\p{Bidi_Control}/gu, "");
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u3164]/u;

describe.skipIf(!hasChromium)("names an app gives itself", () => {
  it("show inert on the consent page and in the console", async () => {
    const register = (clientName: string) =>
      fetch(`${s.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: clientName, redirect_uris: [redirectUri] }),
      });
    const refused = await register(HOSTILE);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: "invalid_client_metadata",
      error_description: expect.stringMatching(/^client_name: .*bidirectional.*U\+202E/),
    });
    const reg = await register(INVISIBLE_ONLY);
    expect(reg.status).toBe(201);
    const registered = (await reg.json()) as { client_id: string; client_name: string };
    expect(registered.client_name).not.toMatch(INVISIBLE);

    const { key, walletId } = await s.t.newWallet(1000);
    const context = await browser.newContext();
    const page = await context.newPage();
    const q = new URLSearchParams({
      response_type: "code",
      client_id: registered.client_id,
      redirect_uri: redirectUri,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      state: "st",
      resource: `${s.url}/mcp`,
    });
    await page.goto(`${s.url}/oauth/authorize?${q}`);
    const name = (await page.locator("h1 bdi#client-name").textContent()) as string;
    expect(name).not.toMatch(INVISIBLE);
    expect(name.startsWith("gnp.exe Kinora Official x")).toBe(true);
    expect(Array.from(name).length).toBeLessThanOrEqual(CLIENT_NAME_MAX);
    expect(await page.locator("#redirect-host").textContent()).toBe(new URL(redirectUri).host);
    // Every occurrence of the name on the page is isolated.
    expect(await page.locator("main").innerHTML()).not.toMatch(/[^>]gnp\.exe/);

    // An app stored before the rule, with its name as sent, shows inert in the console too.
    await createConnectedApp(s.t.deps, walletId, {
      clientId: registered.client_id,
      clientName: HOSTILE,
      redirectHost: "127.0.0.1",
      limitCents: 100,
      askBeforeSpending: true,
    });
    // The API (what the CLI shows) hands it out inert as well.
    const listed = (await (
      await fetch(`${s.url}/wallet/keys`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { keys: { label: string; connected_app?: { client_name: string } }[] };
    expect(listed.keys.length).toBeGreaterThan(0);
    for (const k of listed.keys) {
      expect(k.label).not.toMatch(INVISIBLE);
      expect(k.connected_app?.client_name ?? "").not.toMatch(INVISIBLE);
    }
    await page.goto(`${s.url}/console`);
    await page.fill("#wallet_key", key);
    await Promise.all([page.waitForLoadState(), page.click("button[type=submit]")]);
    const shown = (await page
      .locator("#keys tbody tr td:first-child bdi")
      .first()
      .textContent()) as string;
    expect(shown).not.toMatch(INVISIBLE);
    expect(shown.startsWith("gnp.exe Kinora Official")).toBe(true);
    await context.close();
  });
});
