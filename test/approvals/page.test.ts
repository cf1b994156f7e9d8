/**
 * The approval page in real Chromium at a phone's width (390 px): the link an asking key was
 * refused with opens the console's sign-in, then the purchase — who asks, what for, the price —
 * with Approve and Decline; one tap each. The agent's same request then spends once (approved)
 * or nothing (declined); the owner's list shows both. Nobody else answers: another wallet's
 * owner sees no such purchase, and an agent key has no way in (no session; the console takes
 * only a wallet key).
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
    features: [restoreFeature({ noExecutor: true }), paymentsFeature(), consoleFeature()],
  });
  s.t.clock.set(new Date());
  if (hasChromium) browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const body = (filename: string) => ({
  duration_sec: 2,
  quality: "faithful",
  filename,
  content_type: "video/mp4",
  size: 1000,
});

const balanceOf = async (walletKey: string) =>
  (await s.t.call("GET", "/wallet", { key: walletKey })).body.wallet.balance_cents as number;

/** A phone-sized browser at the link, signed in there with `walletKey`. */
async function openSignedIn(url: string, walletKey: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.fill("#wallet_key", walletKey);
  await page.click("button:has-text('Sign in')");
  return page;
}

/** Whether anything on the page is wider than the window (a phone would scroll sideways). */
const overflows = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

describe.skipIf(!hasChromium)("the approval page", () => {
  it("approves with one tap after signing in, declines with one tap; the agent spends once, or nothing", async () => {
    const owner = await s.t.newWallet(5000);
    const agent = await s.t.newAgentKey(owner.key, 3000, { askBeforeSpending: true });
    const asked = await s.t.call("POST", "/cloud/jobs", { key: agent.key, body: body("tape.mp4") });
    expect(asked.status).toBe(402);
    const url = asked.body.approval_url as string;
    expect(url).toBe(`${s.url}/approve/${asked.body.approval_id}`);
    const price = asked.body.price_cents as number;

    const page = await openSignedIn(url, owner.key);
    await page.waitForSelector("#approve");
    expect(page.url()).toBe(url);
    expect(await page.textContent("#question")).toBe(asked.body.question);
    expect(await page.textContent("#price")).toBe(`$${(price / 100).toFixed(2)}`);
    expect(await overflows(page)).toBe(false);
    const box = await page.locator("#approve").boundingBox();
    expect(box && box.x + box.width).toBeLessThanOrEqual(390);
    await page.click("#approve");
    await page.waitForSelector("#done");
    expect(await page.textContent("#state")).toMatch(/^Approved/);
    expect(await page.locator("#approve").count()).toBe(0);

    const made = await s.t.call("POST", "/cloud/jobs", { key: agent.key, body: body("tape.mp4") });
    expect(made.status).toBe(200);
    const again = await s.t.call("POST", "/cloud/jobs", { key: agent.key, body: body("tape.mp4") });
    expect(again.body.job.id).toBe(made.body.job.id);
    expect(await balanceOf(owner.key)).toBe(5000 - price);

    // A second purchase, on the same (signed-in) phone: Decline.
    const second = await s.t.call("POST", "/cloud/jobs", { key: agent.key, body: body("b.mp4") });
    await page.goto(second.body.approval_url);
    await page.click("#decline");
    await page.waitForSelector("#done");
    expect(await page.textContent("#state")).toMatch(/^Declined/);
    const refused = await s.t.call("POST", "/cloud/jobs", { key: agent.key, body: body("b.mp4") });
    expect(refused.status).toBe(402);
    expect(await balanceOf(owner.key)).toBe(5000 - price);

    await page.goto(`${s.url}/console/approvals`);
    const rows = await page.locator("#approvals tr[data-approval]").allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows.join("\n")).toMatch(/declined/);
    expect(rows.join("\n")).toMatch(/approved, bought/);
    expect(await overflows(page)).toBe(false);
    await page.context().close();
  });

  it("answers nobody but the owner: another wallet's owner, and no agent key", async () => {
    const owner = await s.t.newWallet(5000);
    const agent = await s.t.newAgentKey(owner.key, 3000, { askBeforeSpending: true });
    const asked = await s.t.call("POST", "/cloud/jobs", { key: agent.key, body: body("c.mp4") });
    const url = asked.body.approval_url as string;

    const stranger = await s.t.newWallet(0);
    const theirs = await openSignedIn(url, stranger.key);
    await theirs.waitForSelector("#refused");
    expect(await theirs.locator("#approve").count()).toBe(0);
    await theirs.context().close();

    // The agent's own key does not sign in, and a post without a session decides nothing.
    const agentPage = await openSignedIn(url, agent.key);
    await agentPage.waitForSelector(".error");
    expect(await agentPage.locator("#approve").count()).toBe(0);
    await agentPage.context().close();
    const posted = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${agent.key}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "decision=approve",
      redirect: "manual",
    });
    expect(posted.status).toBe(403);
    const read = await s.t.call("GET", `/approvals/${asked.body.approval_id}`, { key: agent.key });
    expect(read.body.approval.status).toBe("pending");
    const retry = await s.t.call("POST", "/cloud/jobs", { key: agent.key, body: body("c.mp4") });
    expect(retry.status).toBe(402);
    expect(await balanceOf(owner.key)).toBe(5000);
  });
});
