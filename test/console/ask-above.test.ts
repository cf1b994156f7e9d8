/**
 * The owner's threshold in the console, in real Chromium at a phone's width (390 px): the new-key
 * form and a key's change form set "ask only above" (empty: ask before every purchase); the keys
 * list shows it; a threshold that is not dollars, or above the key's limit, is refused beside the
 * form with nothing changed.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleFeature } from "../../src/features/console.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { hasChromium, launchChromium } from "../browser.js";
import { type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
let browser: Browser;

beforeAll(async () => {
  s = await serveTestApp({
    env: { RATE_LIMITS: "off" },
    features: [restoreFeature({ noExecutor: true }), paymentsFeature(), consoleFeature()],
  });
  if (hasChromium) browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

async function signedIn(key: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(`${s.url}/console`);
  await page.fill("#wallet_key", key);
  await page.click("button:has-text('Sign in')");
  await page.waitForSelector("#balance");
  return page;
}

const keysOf = async (walletKey: string) =>
  (await s.t.call("GET", "/wallet/keys", { key: walletKey })).body.keys as {
    id: string;
    ask_above_cents: number | null;
    limit_cents: number;
  }[];

describe.skipIf(!hasChromium)("console: ask only above (390 px)", () => {
  it("creates a key with a threshold, changes and clears it, refuses what makes no sense", async () => {
    const w = await s.t.newWallet(1000);
    const page = await signedIn(w.key);
    await page.fill("#label", "phone bot");
    await page.fill("#limit_dollars", "5.00");
    await page.fill("#ask_above_dollars", "1.50");
    await page.click("button:has-text('Create key')");
    await page.waitForSelector("#new-secret");
    const [made] = await keysOf(w.key);
    expect(made).toMatchObject({ ask_above_cents: 150, limit_cents: 500 });
    const row = page.locator(`tr[data-key="${made?.id}"]`);
    expect(await row.locator("td[data-label='Asks first']").textContent()).toBe("above $1.50");
    // Nothing wider than the phone.
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);

    // Above the key's limit: refused beside the form, what was typed kept, nothing changed.
    await row.locator("summary").click();
    await page.fill(`#ask-above-${made?.id}`, "6.00");
    await row.locator("button:has-text('Save')").click();
    const error = page.locator(`#limit-error-${made?.id}`);
    expect(await error.textContent()).toMatch(
      /Ask only above: must be at most the key's limit \(\$5\.00\)/,
    );
    expect(await page.inputValue(`#ask-above-${made?.id}`)).toBe("6.00");
    expect((await keysOf(w.key))[0]?.ask_above_cents).toBe(150);

    // Not dollars: the form's own refusal.
    await page.fill(`#ask-above-${made?.id}`, "lots");
    await page.locator(`tr[data-key="${made?.id}"] button:has-text('Save')`).click();
    expect(await page.locator(`#limit-error-${made?.id}`).textContent()).toMatch(
      /Ask only above: give dollars/,
    );
    expect((await keysOf(w.key))[0]?.ask_above_cents).toBe(150);

    // Changed, then cleared: ask before every purchase again.
    await page.fill(`#ask-above-${made?.id}`, "0.75");
    await page.locator(`tr[data-key="${made?.id}"] button:has-text('Save')`).click();
    await page.waitForSelector(`tr[data-key="${made?.id}"] td:has-text('above $0.75')`);
    expect((await keysOf(w.key))[0]?.ask_above_cents).toBe(75);
    await page.locator(`tr[data-key="${made?.id}"] summary`).click();
    await page.fill(`#ask-above-${made?.id}`, "");
    await page.locator(`tr[data-key="${made?.id}"] button:has-text('Save')`).click();
    await page.waitForSelector(
      `tr[data-key="${made?.id}"] td[data-label='Asks first']:text-is('yes')`,
    );
    expect((await keysOf(w.key))[0]).toMatchObject({ ask_above_cents: null, limit_cents: 500 });
    await page.context().close();
  });
});
