/**
 * Sign-in sessions, consent forms and key guesses (issue 21, item 5). In Chromium: a second
 * sign-in in the same browser rotates the session and ends the one it replaces; a consent form
 * submitted twice connects one app, and the second submit shows it already connected. Over
 * real HTTP: failed key guesses from one address (REST and /mcp alike) meet 429 with
 * Retry-After, a good key from that address still works, and IPv6 is counted per /64.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { consoleFeature } from "../../src/features/console.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { hasChromium, launchChromium } from "../browser.js";
import { pkce } from "../connected-apps/browserless.js";
import { type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
let limited: ServedApp;
let behindProxy: ServedApp;
let browser: Browser;
let callback: Server;
let redirectUri = "";

beforeAll(async () => {
  s = await serveTestApp({ features: [consoleFeature(), connectedAppsFeature()] });
  const env = { RATE_LIMITS: "on", RATE_LIMIT_SIGNIN_PER_MIN: "5" };
  limited = await serveTestApp({ features: [mcpFeature()], env });
  behindProxy = await serveTestApp({ env: { ...env, TRUST_PROXY: "true" } });
  callback = createServer((_q, res) => res.end("back at the app"));
  await new Promise<void>((r) => callback.listen(0, "127.0.0.1", r));
  redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  callback?.closeAllConnections();
  await new Promise((r) => callback?.close(r));
  for (const app of [s, limited, behindProxy]) await app?.close();
});

const SESSION = "kinora_session";

describe.skipIf(!hasChromium)("browser sessions and consent forms", () => {
  it("a second sign-in rotates the session and ends the one it replaces", async () => {
    const a = await s.t.newWallet(0);
    const b = await s.t.newWallet(0);
    const context = await browser.newContext();
    // Two tabs show the sign-in form; the second is used after the first signed in.
    const tabs = [await context.newPage(), await context.newPage()];
    for (const tab of tabs) await tab.goto(`${s.url}/console`);
    let next = 0;
    const signIn = async (key: string) => {
      const page = tabs[next++] as (typeof tabs)[number];
      await page.fill("#wallet_key", key);
      await Promise.all([page.waitForLoadState(), page.click("button[type=submit]")]);
      await page.waitForSelector("#balance");
      return (await context.cookies()).find((c) => c.name === SESSION)?.value as string;
    };
    const first = await signIn(a.key);
    expect(first).toBeTruthy();
    const second = await signIn(b.key);
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    const consoleWith = async (id: string) =>
      (await fetch(`${s.url}/console`, { headers: { cookie: `${SESSION}=${id}` } })).text();
    // The replaced session is over: it shows the sign-in form, not a wallet.
    const old = await consoleWith(first);
    expect(old).toContain('name="wallet_key"');
    expect(old).not.toContain(a.walletId);
    expect(await consoleWith(second)).toContain(b.walletId);
    await context.close();
  });

  it("a consent form submitted twice connects one app; the second submit says it is connected", async () => {
    const reg = await fetch(`${s.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Twice", redirect_uris: [redirectUri] }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const { key, walletId } = await s.t.newWallet(1000);
    // bypassCSP lets the test re-send the page's own form from inside the page.
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    const q = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      state: "st",
      resource: `${s.url}/mcp`,
    });
    await page.goto(`${s.url}/oauth/authorize?${q}`);
    await page.fill("#wallet_key", key);
    await Promise.all([page.waitForURL(/oauth\/authorize/), page.click("button[value=signin]")]);
    await page.waitForSelector("#allow");
    // The same form, sent twice from the page (a double submit), then clicked a third time.
    const statuses = await page.evaluate(async () => {
      const form = document.querySelector("#allow")?.closest("form") as HTMLFormElement;
      const body = new URLSearchParams(new FormData(form) as unknown as Record<string, string>);
      body.set("action", "allow");
      const send = () =>
        fetch("/oauth/authorize", { method: "POST", body, redirect: "manual" }).then((r) =>
          r.type === "opaqueredirect" ? 302 : r.status,
        );
      return [await send(), await send()];
    });
    expect(statuses).toEqual([302, 409]);
    const third = await Promise.all([page.waitForLoadState(), page.click("#allow")]);
    expect(third).toBeTruthy();
    expect(await page.locator("h1").textContent()).toBe("Already connected");
    expect(await page.locator("#problem").textContent()).toContain("Twice is connected");
    const apps = await s.t.deps.db
      .selectFrom("agent_keys")
      .select("id")
      .where("wallet_id", "=", walletId)
      .where("kind", "=", "connected_app")
      .execute();
    expect(apps).toHaveLength(1);
    await context.close();
  });
});

describe("failed key guesses from one address", () => {
  const guess = (app: ServedApp, p: string, headers: Record<string, string> = {}) =>
    fetch(`${app.url}${p}`, { headers });
  const garbage = (i: number) => `pmk_${String(i).padStart(43, "0")}`;

  it("meet 429 with Retry-After (REST and /mcp share the rule); a good key still works", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await guess(limited, "/wallet", { authorization: `Bearer ${garbage(i)}` });
      statuses.push(res.status);
    }
    const refused = await guess(limited, "/wallet", { authorization: `Bearer ${garbage(9)}` });
    statuses.push(refused.status);
    const mcp = await fetch(`${limited.url}/mcp?key=pak_${"8".repeat(43)}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    statuses.push(mcp.status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const { key } = await limited.t.newWallet(0);
    expect((await guess(limited, "/wallet", { authorization: `Bearer ${key}` })).status).toBe(200);
  });

  it("count an IPv6 /64 as one address", async () => {
    const from = (address: string, i: number) =>
      guess(behindProxy, "/wallet", {
        authorization: `Bearer ${garbage(i)}`,
        "x-forwarded-for": address,
      }).then((r) => r.status);
    const sameNet = [
      "2001:db8:1:2::1",
      "2001:db8:1:2::2",
      "2001:db8:1:2:aaaa::3",
      "2001:0db8:0001:0002:ffff:ffff:ffff:ffff",
      "2001:db8:1:2:1:2:3:4",
      "2001:db8:1:2::6",
    ];
    const statuses = [];
    for (const [i, address] of sameNet.entries()) statuses.push(await from(address, i));
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(await from("2001:db8:1:3::1", 7)).toBe(401);
  });
});
