/**
 * Webhooks in the owner's console (real Chromium): register an endpoint (its secret shown
 * once), send a test event that the receiver gets signed, see the delivery in the list, and
 * delete the endpoint.
 */
import type { Browser } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleFeature } from "../../src/features/console.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { webhooksFeature } from "../../src/features/webhooks.js";
import { hasChromium, launchChromium } from "../browser.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { type Receiver, startReceiver } from "./receiver.js";

let s: ServedApp;
let browser: Browser;
let receiver: Receiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  receiver = await startReceiver();
  s = await serveTestApp({
    env: { WEBHOOK_ALLOW_HTTP_LOOPBACK: "true" },
    features: [paymentsFeature(), consoleFeature(), webhooksFeature({ kinds: [], pollMs: 50 })],
  });
  s.t.clock.set(new Date());
  const task = await s.t.features.find((f) => f.name === "webhooks")?.start?.();
  stop = async () => task?.stop();
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stop?.();
  await receiver?.close();
  await s?.close();
});

describe.skipIf(!hasChromium)("webhooks in the console", () => {
  it("registers an endpoint, sends a test event, shows the delivery, deletes it", async () => {
    const owner = await s.t.newWallet(0);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${s.url}/console`);
    await page.fill("#wallet_key", owner.key);
    await page.click("button:has-text('Sign in')");
    await page.waitForSelector("#balance");
    await page.fill("#webhook_url", "https://10.0.0.9/hook");
    await page.click("button:has-text('Add endpoint')");
    expect(await page.textContent("p.error")).toMatch(/private address/);
    await page.fill("#webhook_url", receiver.url);
    await page.click("button:has-text('Add endpoint')");
    const secret = (await page.textContent("#new-webhook-secret"))?.trim() ?? "";
    expect(secret).toMatch(/^whsec_/);
    await page.goto(`${s.url}/console`);
    expect(await page.content()).not.toContain(secret);
    // Each endpoint's buttons are named after it, for screen readers as for this test.
    // The form answers with a redirect to /console#webhooks; the receiver may hear the event
    // before that navigation commits, and a reload during it detaches the page: wait for it.
    await Promise.all([
      page.waitForURL(/\/console#webhooks$/),
      page.getByRole("button", { name: `Send test event to ${receiver.url}` }).click(),
    ]);
    const [got] = await receiver.waitFor(1);
    expect(
      (new Webhook(secret).verify(got?.body ?? "", got?.headers ?? {}) as { type: string }).type,
    ).toBe("webhook.test");
    // The attempt's outcome is written after the receiver answered: poll for it (generously,
    // a loaded CI machine renders the console slowly). The form's redirect already left the
    // page at /console#webhooks, where a goto to the same URL only scrolls: reload it.
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
      await page.reload();
      if ((await page.textContent("#webhooks .deliveries tbody"))?.includes("delivered")) break;
      await page.waitForTimeout(100);
    }
    expect(await page.textContent("#webhooks .deliveries tbody")).toContain("delivered");
    await page.getByRole("button", { name: `Delete the endpoint ${receiver.url}` }).click();
    await page.waitForSelector("text=No webhook endpoints yet.");
    await context.close();
  });
});
