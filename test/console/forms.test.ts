/**
 * The console's create forms in real Chromium (issue 34): a refused webhook or key is said
 * beside its form — in view when the answer opens, not 2,000 px above it — with what was typed
 * put back; a receiver on this machine is refused with the development setting that allows it
 * (ALLOW_LOOPBACK_URLS). Bidirectional controls: refused in what the forms send, and stripped
 * from what older rows hold when the console shows them (a webhook's description, a file name,
 * a prompt), so "\u202Egnp.exe" never displays as "exe.png".
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleFeature } from "../../src/features/console.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { webhooksFeature } from "../../src/features/webhooks.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { createEndpoint } from "../../src/services/webhooks/endpoints.js";
import { hasChromium, launchChromium } from "../browser.js";
import { createUploadStart, makeImage, stubClassifier } from "../clips/helpers.js";
import { jobBody } from "../restore/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";

const RLO = "\u202E";
let s: ServedApp;
let browser: Browser;

beforeAll(async () => {
  s = await serveTestApp({
    env: { RATE_LIMITS: "off" },
    features: [
      restoreFeature({ noExecutor: true }),
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
      paymentsFeature(),
      consoleFeature(),
      webhooksFeature({ kinds: [] }),
    ],
  });
  s.t.clock.set(new Date());
  if (hasChromium) browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

async function signedIn(key: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${s.url}/console`);
  await page.fill("#wallet_key", key);
  await page.click("button:has-text('Sign in')");
  await page.waitForSelector("#balance");
  return { context, page };
}

/** Where an element is: its top in the page, and whether it is inside the window. */
const placeOf = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return {
      pageTop: r.top + window.scrollY,
      inView: r.top >= 0 && r.bottom <= window.innerHeight,
    };
  });

/** A long dashboard: keys, endpoints with descriptions, jobs, so the forms sit far down. */
async function busyWallet() {
  const owner = await s.t.newWallet(10_000);
  for (let i = 0; i < 6; i++) await s.t.newAgentKey(owner.key, 100 + i);
  for (let i = 0; i < 3; i++) {
    const job = await s.t.call("POST", "/cloud/jobs", {
      key: owner.key,
      body: jobBody({ sizeBytes: 1000 }, { filename: `tape-${i}.mp4` }),
    });
    expect(job.status).toBe(200);
  }
  return owner;
}

describe.skipIf(!hasChromium)("the console's forms", () => {
  it("says a refused webhook beside its form, in view, with the URL and events kept", async () => {
    const owner = await busyWallet();
    const { context, page } = await signedIn(owner.key);
    const local = "http://127.0.0.1:4567/kinora-hook";
    // Without the setting, the form's help says how a receiver on this machine is allowed.
    expect(await page.textContent("#webhook_url_help")).toContain("ALLOW_LOOPBACK_URLS=1");
    await page.fill("#webhook_url", local);
    await page.uncheck("input[name=events][value='wallet.credited']");
    await page.check("input[name=events][value='job.progress']");
    await page.click("button:has-text('Add endpoint')");
    await page.waitForSelector("#webhook-form-error");
    const message = (await page.textContent("#webhook-form-error")) ?? "";
    // REST's refusal of the same URL, its field named as the form labels it.
    expect(message).toMatch(
      /^Endpoint not added: URL: points at a loopback address \(127\.0\.0\.1\)/,
    );
    expect(message).toContain("ALLOW_LOOPBACK_URLS=1");
    // Beside the form and in view as the answer opens: not at the top of a long page.
    const error = await placeOf(page, "#webhook-form-error");
    const input = await placeOf(page, "#webhook_url");
    expect(error.inView).toBe(true);
    expect(input.inView).toBe(true);
    expect(Math.abs(input.pageTop - error.pageTop)).toBeLessThan(150);
    expect(error.pageTop).toBeGreaterThan(1500); // the dashboard above it is long
    expect(await page.locator("p.error").count()).toBe(1); // and nothing at the top
    // What was typed is still there; the input is marked and described by the message.
    expect(await page.inputValue("#webhook_url")).toBe(local);
    expect(await page.getAttribute("#webhook_url", "aria-invalid")).toBe("true");
    expect(await page.getAttribute("#webhook_url", "aria-describedby")).toContain(
      "webhook-form-error",
    );
    expect(await page.isChecked("input[name=events][value='wallet.credited']")).toBe(false);
    expect(await page.isChecked("input[name=events][value='job.progress']")).toBe(true);
    expect(await page.isChecked("input[name=events][value='job.completed']")).toBe(true);
    // A bidirectional control in the URL is refused the same way.
    await page.fill("#webhook_url", `https://hooks.example.com/${RLO}gnp.exe`);
    await page.click("button:has-text('Add endpoint')");
    await page.waitForSelector("#webhook-form-error");
    expect(await page.textContent("#webhook-form-error")).toMatch(/URL: .*bidirectional.*U\+202E/);
    expect((await s.t.call("GET", "/wallet/webhooks", { key: owner.key })).body.endpoints).toEqual(
      [],
    );
    await context.close();
  });

  it("says a refused key beside its form, with the label and limit kept", async () => {
    const owner = await busyWallet();
    const { context, page } = await signedIn(owner.key);
    await page.fill("#label", "Kitchen tablet");
    await page.fill("#limit_dollars", "lots");
    await page.check("input[name=trust]");
    await page.click("button:has-text('Create key')");
    await page.waitForSelector("#key-form-error");
    expect(await page.textContent("#key-form-error")).toContain("Spending limit: give dollars");
    expect((await placeOf(page, "#key-form-error")).inView).toBe(true);
    expect(await page.inputValue("#label")).toBe("Kitchen tablet");
    expect(await page.inputValue("#limit_dollars")).toBe("lots");
    expect(await page.isChecked("input[name=trust]")).toBe(true);
    // A label with a right-to-left override: refused, naming the field.
    await page.fill("#label", `${RLO}gnp.exe`);
    await page.fill("#limit_dollars", "5.00");
    await page.click("button:has-text('Create key')");
    await page.waitForSelector("#key-form-error");
    expect(await page.textContent("#key-form-error")).toMatch(/^Label: .*bidirectional.*U\+202E/);
    expect((await s.t.call("GET", "/wallet/keys", { key: owner.key })).body.keys).toHaveLength(6);
    // A good one: its secret is shown beside the form, in view.
    await page.fill("#label", "Kitchen tablet");
    await page.click("button:has-text('Create key')");
    await page.waitForSelector("#new-secret");
    expect((await page.textContent("#new-secret"))?.trim()).toMatch(/^pak_/);
    expect((await placeOf(page, "#new-secret")).inView).toBe(true);
    await context.close();
  });

  it("says under each kind's jobs what it takes: a restore's length and size limits", async () => {
    const owner = await s.t.newWallet(0);
    const { context, page } = await signedIn(owner.key);
    // The operator's limits as the prices answer gives them (RESTORE_MAX_* settings).
    const prices = (await s.t.call("GET", "/cloud/prices")).body;
    expect(prices.limits.summary).toMatch(/^Videos up to 6 hours and 50 GiB/);
    expect(await page.locator(".limits").allTextContents()).toContain(prices.limits.summary);
    await context.close();
  });

  it("shows older rows' owner text without its bidirectional controls", async () => {
    const owner = await s.t.newWallet(10_000);
    // Rows written before the rule: straight through the services, as they were stored then.
    const policy = { ...s.t.deps, receivers: { allowHttpLoopback: true } };
    await createEndpoint(policy, owner.walletId, {
      url: "http://127.0.0.1:4567/hook",
      description: `invoices ${RLO}gnp.exe`,
    });
    const job = await s.t.call("POST", "/cloud/jobs", {
      key: owner.key,
      body: jobBody({ sizeBytes: 1000 }),
    });
    await s.t.deps.db
      .updateTable("restore_jobs")
      .set({ filename: `${RLO}4pm.exe` })
      .where("id", "=", job.body.job.id)
      .execute();
    const clip = await createUploadStart(s.t, owner.key, await makeImage(64, 48));
    await s.t.deps.db
      .updateTable("clips")
      .set({ prompt: `${RLO}gnp.exe waves` })
      .where("id", "=", clip.created.job.id)
      .execute();
    const { context, page } = await signedIn(owner.key);
    const html = await page.content();
    expect(html).not.toContain(RLO);
    expect(await page.textContent("#webhooks .description")).toBe("invoices gnp.exe");
    expect(await page.textContent(`tr[data-job="${job.body.job.id}"] td.video bdi`)).toBe(
      "4pm.exe",
    );
    expect(
      await page.textContent(`tr[data-job="${clip.created.job.id}"] td[data-label=Prompt] bdi`),
    ).toBe("gnp.exe waves");
    await context.close();
  });
});
