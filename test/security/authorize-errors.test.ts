/**
 * No open redirect through authorization errors (issue 21, item 1; RFC 9700 §4.11.2), in real
 * Chromium: a client registered dynamically with any https redirect URI, sent to
 * /oauth/authorize with a broken request, stays on kinora's own error page — the browser makes
 * no request to the client's site — and the page offers a "Return to <host>" link carrying the
 * error, state and iss back. Allow and Deny still redirect (test/connected-apps/oauth-*.test.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { hasChromium, launchChromium } from "../browser.js";
import { type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
let browser: Browser;
let clientId: string;
const REDIRECT = "https://attacker.example/landing";

beforeAll(async () => {
  s = await serveTestApp({ features: [connectedAppsFeature()] });
  if (hasChromium) browser = await launchChromium();
  const res = await fetch(`${s.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Anyone", redirect_uris: [REDIRECT] }),
  });
  expect(res.status).toBe(201);
  clientId = ((await res.json()) as { client_id: string }).client_id;
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

function authorizeUrl(extra: Record<string, string | undefined>): string {
  const challenge = createHash("sha256").update(randomBytes(32)).digest("base64url");
  const q: Record<string, string | undefined> = {
    client_id: clientId,
    response_type: "code",
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource: `${s.url}/mcp`,
    state: "st-9",
    ...extra,
  };
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, v);
  return `${s.url}/oauth/authorize?${params}`;
}

describe.skipIf(!hasChromium)("authorize errors of a self-registered client", () => {
  const broken: [string, Record<string, string | undefined>, string][] = [
    ["response_type=x", { response_type: "x" }, "unsupported_response_type"],
    ["no code_challenge", { code_challenge: undefined }, "invalid_request"],
    ["another resource", { resource: "https://elsewhere.example/mcp" }, "invalid_target"],
    ["an unknown scope", { scope: "admin" }, "invalid_scope"],
  ];
  it.each(broken)(
    "%s: kinora's page, no request to the client's site",
    async (_n, extra, error) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const offsite: string[] = [];
      await page.route("https://attacker.example/**", (route) => {
        offsite.push(route.request().url());
        return route.fulfill({ status: 200, body: "landed" });
      });
      const res = await page.goto(authorizeUrl(extra));
      expect(res?.status()).toBe(400);
      expect(page.url().startsWith(s.url)).toBe(true);
      // Nothing navigates on its own (no meta refresh, no script): wait, then look again.
      await page.waitForTimeout(300);
      expect(offsite).toEqual([]);
      expect(page.url().startsWith(s.url)).toBe(true);
      const link = page.locator("#return");
      expect(await link.textContent()).toBe("Return to attacker.example");
      const back = new URL((await link.getAttribute("href")) as string);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(back.searchParams.get("error")).toBe(error);
      expect(back.searchParams.get("state")).toBe("st-9");
      expect(back.searchParams.get("iss")).toBe(s.url);
      // Following it is the person's choice, and then it goes where the page said.
      await link.click();
      await page.waitForURL("https://attacker.example/**");
      expect(offsite).toHaveLength(1);
      await context.close();
    },
  );
});
