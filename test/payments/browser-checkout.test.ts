/**
 * The built-in TEST MODE checkout paid in a real browser (Debian Chromium via playwright-core)
 * against a real HTTP server on 127.0.0.1: a card top-up credited exactly once however often
 * Pay is pressed, and a no-key restore paid by checkout that runs to done.
 */
import { mkdtempSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { serve } from "@hono/node-server";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { silentLogger } from "../../src/logger.js";
import { type JobSystem, startJobSystem } from "../../src/workers/supervisor.js";
import { CHROMIUM, hasChromium, launchChromium } from "../browser.js";
import { jobBody, makeVideo, upload } from "../restore/helpers.js";
import { createPaymentsApp, type PaymentsTestApp } from "./helpers.js";

if (!hasChromium) console.warn(`browser checkout tests skipped: ${CHROMIUM} is missing`);

describe.skipIf(!hasChromium)("test checkout in Chromium", () => {
  let t: PaymentsTestApp;
  let server: Server;
  let base: string;
  let browser: Browser;
  let jobs: JobSystem;

  beforeAll(async () => {
    t = await createPaymentsApp({}, {}, [
      restoreFeature({ fetch: (url, init) => t.fetchUrl(url, init) }),
    ]);
    t.clock.set(new Date());
    server = serve({ fetch: t.app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
    await new Promise<void>((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    jobs = await startJobSystem({
      database: t.database,
      queues: t.features.flatMap((f) => f.queues ?? []),
      executors: t.features.flatMap((f) => f.executors ?? []),
      workers: 1,
      leaseMs: 60_000,
      log: silentLogger,
      nodeId: "browser-test",
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await jobs?.stop(5_000);
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  /** Our checkout links carry the test public URL; the browser reaches the same path here. */
  const local = (url: string) => `${base}${new URL(url).pathname}`;

  it("pays a top-up: credited once despite a double click, a resubmit and reloads", async () => {
    const w = await t.newWallet();
    const co = await t.call("POST", "/wallet/topup", { key: w.key, body: { amount_cents: 1500 } });
    const page = await browser.newPage();
    try {
      await page.goto(local(co.body.checkout_url));
      expect(await page.getByRole("alert").textContent()).toContain("TEST MODE — no real money");
      expect(await page.getByTestId("amount").textContent()).toBe("$15.00");
      const payAction = await page.locator("form:has(#pay)").getAttribute("action");
      await page.locator("#pay").dblclick();
      // The second click's navigation may abort the first's: wait on where the page ends up.
      await expect.poll(() => page.url(), { timeout: 15_000 }).toMatch(/\/done$/);
      await page.waitForLoadState("load");
      expect(await page.locator("#result").textContent()).toBe("Payment received");
      await page.reload();
      // The same form posted again (as a browser back + resubmit would) changes nothing.
      const again = await page.request.post(`${base}${payAction}`, { maxRedirects: 0 });
      expect(again.status()).toBe(303);
      await page.goto(local(co.body.checkout_url));
      expect(await page.locator("#status").textContent()).toContain("paid");
      expect(await page.locator("#pay").count()).toBe(0);
    } finally {
      await page.close();
    }
    expect(await t.balance(w.walletId)).toBe(1500);
    expect((await t.ledger(w.walletId)).filter((e) => e.kind === "topup")).toHaveLength(1);
  });

  it("cancels in the browser: nothing charged", async () => {
    const w = await t.newWallet();
    const co = await t.call("POST", "/wallet/topup", { key: w.key, body: { amount_cents: 800 } });
    const page = await browser.newPage();
    try {
      await page.goto(local(co.body.checkout_url));
      await page.locator("#cancel").click();
      await page.waitForURL(/\/cancelled$/);
      expect(await page.locator("#result").textContent()).toBe("Checkout cancelled");
    } finally {
      await page.close();
    }
    expect(await t.balance(w.walletId)).toBe(0);
  });

  it("pays a no-key restore by checkout and the job runs to done", async () => {
    const video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-browser-")), 1.5);
    const created = await t.call("POST", "/cloud/jobs", {
      body: jobBody(video, {
        duration_sec: 1.5,
        email: "customer@example.com",
        pay_with: "checkout",
      }),
    });
    const id = created.body.job.id as string;
    expect(await upload(t, created.body, video.path)).toBeLessThan(300);
    const co = await t.call("POST", `/cloud/jobs/${id}/checkout`);
    expect(co.status).toBe(200);
    const page = await browser.newPage();
    try {
      await page.goto(local(co.body.checkout_url));
      await page.locator("#pay").click();
      await page.waitForURL(/\/done$/);
      expect(await page.locator("#result").textContent()).toBe("Payment received");
    } finally {
      await page.close();
    }
    const deadline = Date.now() + 60_000;
    let job = (await t.call("GET", `/cloud/jobs/${id}`)).body.job;
    while (!["done", "failed", "refunded"].includes(job.status) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      job = (await t.call("GET", `/cloud/jobs/${id}`)).body.job;
    }
    expect(job).toMatchObject({ status: "done", error: null });
    expect(job.download_url).toBeTruthy();
  });
});
