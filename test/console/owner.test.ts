/**
 * The owner's console for people (issue 20 item 4), in real Chromium at 1280 and 390 px wide:
 * no page scrolls sideways, every table has a header row; a balance is created from the
 * sign-in page (its wallet key shown once); a key's limit changes from the console; Revoke is
 * named after its key and asks first; a revoked key shows no money left; a real restore run by
 * a worker shows its before/after still (to its owner only), its quality named as the ledger
 * names it; the spending chart lists the key that spent; a queued clip shows its queue
 * estimate; a top-up's "Payment received" page leads back to the console.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobEngineDeps } from "../../src/feature.js";
import { consoleFeature } from "../../src/features/console.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { sweepJobs } from "../../src/jobs/retention.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { restoreJobs } from "../../src/kinds/restore/services/definition.js";
import { hasChromium, launchChromium } from "../browser.js";
import { createUploadStart, makeImage, stubClassifier } from "../clips/helpers.js";
import { jobBody, makeVideo } from "../restore/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";

const SHOTS = process.env.SCREENSHOT_DIR;
const WIDTHS = [1280, 390] as const;
let s: ServedApp;
let browser: Browser;

beforeAll(async () => {
  s = await serveTestApp({
    features: [
      restoreFeature(),
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
      paymentsFeature(),
      consoleFeature(),
    ],
    workers: 1,
  });
  s.t.clock.set(new Date());
  if (hasChromium) browser = await launchChromium();
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

/** The page's layout facts at its current width: sideways overflow and tables without headers. */
async function layoutOf(page: Page) {
  return page.evaluate(() => ({
    scrollWidth: document.scrollingElement?.scrollWidth ?? 0,
    innerWidth: window.innerWidth,
    tables: document.querySelectorAll("table").length,
    headless: [...document.querySelectorAll("table")].filter(
      (t) => !t.querySelector("thead th") || t.querySelectorAll("thead th").length === 0,
    ).length,
    emptyHeaders: [...document.querySelectorAll("thead th")].filter(
      (th) => (th.textContent ?? "").trim() === "",
    ).length,
  }));
}

/** At each width: nothing wider than the window, and every table with named headers. */
async function checkLayout(page: Page, name: string) {
  const found: Record<number, Awaited<ReturnType<typeof layoutOf>>> = {};
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    found[width] = await layoutOf(page);
    const f = found[width];
    expect(f.scrollWidth, `${name} at ${width} px`).toBeLessThanOrEqual(f.innerWidth);
    expect(f.headless, `${name} at ${width} px: tables without headers`).toBe(0);
    expect(f.emptyHeaders, `${name} at ${width} px: empty headers`).toBe(0);
    if (SHOTS) {
      await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
  }
  return found;
}

async function signedIn(key: string): Promise<BrowserContext> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${s.url}/console`);
  await page.fill("#wallet_key", key);
  await page.click("button:has-text('Sign in')");
  await page.waitForSelector("#balance");
  await page.close();
  return context;
}

async function newKey(walletKey: string, label: string, limitCents: number, ask = true) {
  const res = await s.t.call("POST", "/wallet/keys", {
    key: walletKey,
    body: { label, limit_cents: limitCents, ask_before_spending: ask },
  });
  expect(res.status).toBe(200);
  return { key: res.body.key as string, id: res.body.agent_key.id as string };
}

async function waitForJob(key: string, id: string, timeoutMs = 90_000) {
  for (const until = Date.now() + timeoutMs; ; ) {
    const job = (await s.t.call("GET", `/cloud/jobs/${id}`, { key })).body.job;
    if (["done", "failed", "refunded"].includes(job.status)) return job;
    if (Date.now() > until) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(!hasChromium)("the console for people", () => {
  it("creates a balance from the sign-in page, its wallet key shown once", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${s.url}/console`);
    await checkLayout(page, "signin");
    await page.click("#create-balance");
    const key = ((await page.textContent("#wallet-key")) ?? "").trim();
    expect(key).toMatch(/^pmk_/);
    await checkLayout(page, "new-balance");
    const wallet = await s.t.call("GET", "/wallet", { key });
    expect(wallet.status).toBe(200);
    await page.click("#continue");
    await page.waitForSelector("#balance");
    expect(await page.textContent("#balance")).toBe("$0.00");
    expect(await page.content()).toContain(wallet.body.wallet.wallet_id);
    expect(await page.content()).not.toContain(key);
    // Signed in by the creation: the same wallet key signs in later too.
    await page.click("button:has-text('Sign out')");
    await page.fill("#wallet_key", key);
    await page.click("button:has-text('Sign in')");
    await page.waitForSelector("#balance");
    await context.close();
  });

  it("shows a done restore with its before/after still, progress facts, headers everywhere, and fits 390 px", async () => {
    const owner = await s.t.newWallet(5000);
    const spender = await newKey(owner.key, "Living-room assistant", 1500, false);
    await newKey(owner.key, "A key with a rather long name that must wrap on a phone", 300);
    const dir = mkdtempSync(path.join(tmpdir(), "kinora-console-"));
    const video = await makeVideo(dir, 2);
    const created = await s.t.call("POST", "/cloud/jobs", {
      key: spender.key,
      body: jobBody(video, { duration_sec: 2, quality: "faithful" }),
    });
    expect(created.status).toBe(200);
    const put = await fetch(created.body.upload_url, {
      method: "PUT",
      headers: created.body.upload_headers,
      body: new Uint8Array(await readFile(video.path)),
    });
    expect(put.status).toBeLessThan(300);
    const id = created.body.job.id as string;
    expect((await s.t.call("POST", `/cloud/jobs/${id}/start`, { key: spender.key })).status).toBe(
      200,
    );
    const job = await waitForJob(spender.key, id);
    expect(job.status).toBe("done");
    // A clip waiting for a worker (none runs clips here): its queue place and estimate.
    const clip = await createUploadStart(s.t, owner.key, await makeImage(320, 240));
    expect(clip.started.status).toBe(200);

    const context = await signedIn(owner.key);
    const page = await context.newPage();
    await page.goto(`${s.url}/console`);
    const found = await checkLayout(page, "dashboard");
    expect(found[1280]?.tables).toBeGreaterThanOrEqual(5); // spending, keys, restores, clips, ledger

    const row = page.locator(`tr[data-job="${id}"]`);
    expect(await row.locator(".status").textContent()).toContain("done");
    expect(await row.locator(".expiry").textContent()).toMatch(/^deleted \d{4}-\d\d-\d\d/);
    // The still: loaded, 480 px wide as made, from kinora only.
    const still = row.locator(".still img");
    await still.waitFor();
    const natural = await still.evaluate(async (img: HTMLImageElement) => {
      if (!img.complete) await new Promise((r) => img.addEventListener("load", r));
      return { w: img.naturalWidth, h: img.naturalHeight };
    });
    expect(natural.w).toBe(480);
    expect(natural.h).toBeGreaterThan(100);
    expect(await still.getAttribute("alt")).toMatch(/before .* after/);
    const src = `${s.url}${await still.getAttribute("src")}`;
    const shot = await context.request.get(src);
    expect(shot.status()).toBe(200);
    expect(shot.headers()["content-type"]).toBe("image/jpeg");
    const jpeg = await shot.body();
    expect(jpeg.subarray(0, 2).toString("hex")).toBe("ffd8");
    expect(jpeg.length).toBeLessThan(100_000);
    // Nobody else sees it: not signed in, or signed in to another wallet.
    expect((await fetch(src)).status).toBe(401);
    const stranger = await signedIn((await s.t.newWallet(0)).key);
    expect((await stranger.request.get(src)).status()).toBe(404);
    await stranger.close();
    // Stored under the job's files, so it goes with them.
    expect(await s.t.deps.storage.head(`restore/${id}/still`)).not.toBeNull();

    // One name per quality: the jobs table and the ledger say the same.
    expect(await row.locator("td[data-label=Quality]").textContent()).toBe("Standard");
    const charge = page.locator("#ledger tbody tr", { hasText: id }).first();
    expect(await charge.textContent()).toContain("(Standard,");
    expect(await page.locator("#ledger").textContent()).not.toMatch(/faithful|enhanced_max/);

    // The clip waits in the queue with the server's estimate.
    const clipRow = page.locator(`tr[data-job="${clip.created.job.id}"]`);
    expect(await clipRow.locator(".queue").textContent()).toMatch(
      /(next in the queue|a worker is running it) · done in about (\d+s|\d+m \d\ds)/,
    );

    // The spending chart names the key that spent, with what it spent.
    expect(await page.locator("#spending svg rect").count()).toBeGreaterThan(0);
    expect(
      await page.locator(`#spending tr[data-spender="${spender.id}"]`).textContent(),
    ).toContain(job.display_price);
    await context.close();
    // It goes with the job's files: once they expire, the retention sweep deletes it too.
    s.t.clock.set(new Date(Date.parse(job.expires_at) + 1000));
    await sweepJobs(restoreJobs, jobEngineDeps(s.t.platform));
    expect(await s.t.deps.storage.head(`restore/${id}/still`)).toBeNull();
    const after = await s.t.call("GET", `/cloud/jobs/${id}`, { key: spender.key });
    expect(after.body.job.status).toBe("expired");
  }, 120_000);

  it("changes a key's limit, never below what it spent", async () => {
    const owner = await s.t.newWallet(5000);
    const k = await newKey(owner.key, "Kitchen tablet", 500, false);
    // It spends $2.99 (a restore paid at creation, its video never sent).
    const spent = await s.t.call("POST", "/cloud/jobs", {
      key: k.key,
      body: jobBody({ sizeBytes: 1000 }, { quality: "faithful" }),
    });
    expect(spent.status).toBe(200);
    const context = await signedIn(owner.key);
    const page = await context.newPage();
    await page.goto(`${s.url}/console`);
    const row = page.locator(`tr[data-key="${k.id}"]`);
    await row.locator("summary").click();
    await page.getByLabel("New limit of Kitchen tablet").fill("12.50");
    await page.getByRole("button", { name: "Save the limit of Kitchen tablet" }).click();
    await page.waitForSelector("#done");
    expect(await page.textContent("#done")).toContain("Kitchen tablet is now $12.50");
    expect(await page.locator(`tr[data-key="${k.id}"] td.limit`).textContent()).toContain("$12.50");
    const seen = await s.t.call("GET", "/wallet", { key: k.key });
    expect(seen.body.wallet.agent_key.limit_cents).toBe(1250);
    // Written to the ledger as the API's change is.
    expect(await page.locator("#ledger tbody").textContent()).toContain(
      "limit of Kitchen tablet changed from $5.00 to $12.50",
    );
    // Refused with a reason: not a number.
    await page.locator(`tr[data-key="${k.id}"] summary`).click();
    await page.getByLabel("New limit of Kitchen tablet").fill("lots");
    await page.getByRole("button", { name: "Save the limit of Kitchen tablet" }).click();
    await page.waitForSelector("p.error");
    expect(await page.textContent("p.error")).toContain("Limit of Kitchen tablet not changed");
    // The refused form stays open with what was typed, so the owner corrects it there.
    await expect(page.getByLabel("New limit of Kitchen tablet").inputValue()).resolves.toBe("lots");
    // Refused with a reason: below what it spent; the limit stays.
    await page.getByLabel("New limit of Kitchen tablet").fill("2.00");
    await page.getByRole("button", { name: "Save the limit of Kitchen tablet" }).click();
    await page.waitForSelector("p.error");
    expect(await page.textContent("p.error")).toContain("already spent ($2.99)");
    const kept = await s.t.call("GET", "/wallet", { key: k.key });
    expect(kept.body.wallet.agent_key.limit_cents).toBe(1250);
    await context.close();
  });

  it("names each Revoke after its key, asks first, and shows the key revoked with nothing left", async () => {
    const owner = await s.t.newWallet(5000);
    const a = await newKey(owner.key, "Old laptop", 400);
    await newKey(owner.key, "New laptop", 400);
    const context = await signedIn(owner.key);
    const page = await context.newPage();
    await page.goto(`${s.url}/console`);
    const revokes = await page
      .locator("#keys tbody button")
      .evaluateAll((bs) =>
        bs.map((b) => b.textContent?.trim()).filter((t) => t?.startsWith("Revoke")),
      );
    // One per key, each named after its key (keys created in the same instant list in any order).
    expect(revokes.sort()).toEqual(["Revoke New laptop", "Revoke Old laptop"]);
    await expect(
      page.getByRole("button", { name: "Revoke Old laptop", exact: true }).count(),
    ).resolves.toBe(1);
    await expect(
      page.getByRole("button", { name: "Revoke New laptop", exact: true }).count(),
    ).resolves.toBe(1);
    await page.getByRole("button", { name: "Revoke Old laptop", exact: true }).click();
    // The confirmation step: nothing happened yet.
    await page.waitForSelector("#confirm-revoke");
    expect(await page.textContent("h1")).toBe("Revoke Old laptop?");
    await checkLayout(page, "revoke-confirm");
    expect((await s.t.call("GET", "/wallet", { key: a.key })).status).toBe(200);
    // "Keep it" goes back and changes nothing.
    await page.click("#keep");
    await page.waitForSelector("#balance");
    await page.getByRole("button", { name: "Revoke Old laptop", exact: true }).click();
    await page.getByRole("button", { name: "Revoke Old laptop", exact: true }).click();
    await page.waitForSelector("#balance");
    expect((await s.t.call("GET", "/wallet", { key: a.key })).status).toBe(401);
    const row = page.locator(`tr[data-key="${a.id}"]`);
    expect(await row.locator("td.left").textContent()).toBe("revoked — can spend nothing");
    expect(await row.locator("td.left").textContent()).not.toContain("$");
    expect(await row.locator("button").count()).toBe(0);
    await context.close();
  });

  it("a revoke posted without the confirmation shows the confirmation instead of acting", async () => {
    const owner = await s.t.newWallet(0);
    const a = await newKey(owner.key, "Forged", 400);
    const context = await signedIn(owner.key);
    const page = await context.newPage();
    await page.goto(`${s.url}/console`);
    const csrf = await page.locator("input[name=csrf]").first().getAttribute("value");
    const res = await context.request.post(`${s.url}/console/keys/${a.id}/revoke`, {
      form: { csrf: csrf ?? "" },
    });
    expect(res.status()).toBe(200);
    expect(await res.text()).toContain("confirm-revoke");
    expect((await s.t.call("GET", "/wallet", { key: a.key })).status).toBe(200);
    await context.close();
  });

  it("leads back to the console from the Payment received page", async () => {
    const owner = await s.t.newWallet(0);
    const context = await signedIn(owner.key);
    const page = await context.newPage();
    await page.goto(`${s.url}/console`);
    await page.fill("#topup_dollars", "7.00");
    await page.click("button:has-text('Top up')");
    await page.waitForURL(/\/checkout\//);
    await page.click("button.pay");
    await page.waitForURL(/\/done/);
    expect(await page.textContent("#result")).toBe("Payment received");
    await checkLayout(page, "payment-received");
    await page.click("#back-to-console");
    await page.waitForSelector("#balance");
    expect(await page.textContent("#balance")).toBe("$7.00");
    await context.close();
  });
});
