/**
 * A restore judged at full size (issue 34): from the job in the console, "compare at full size"
 * opens one frame before and after at the result's own size — each picture's natural size is
 * the result's frame size (read from the downloaded result by ffprobe), shown pixel for pixel,
 * side by side and one over the other — in real Chromium, with and without JavaScript; to the
 * job's owner only; and the frames go with the job's other files.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobEngineDeps } from "../../src/feature.js";
import { consoleFeature } from "../../src/features/console.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { sweepJobs } from "../../src/jobs/retention.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { restoreJobs } from "../../src/kinds/restore/services/definition.js";
import { hasChromium, launchChromium } from "../browser.js";
import { jobBody, makeVideo } from "../restore/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";

const run = promisify(execFile);
let s: ServedApp;
let browser: Browser;

beforeAll(async () => {
  s = await serveTestApp({
    features: [restoreFeature(), paymentsFeature(), consoleFeature()],
    workers: 1,
  });
  s.t.clock.set(new Date());
  if (hasChromium) browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

async function signedIn(key: string, javaScriptEnabled = true): Promise<BrowserContext> {
  const context = await browser.newContext({ javaScriptEnabled });
  const page = await context.newPage();
  await page.goto(`${s.url}/console`);
  await page.fill("#wallet_key", key);
  await page.click("button:has-text('Sign in')");
  await page.waitForSelector("#balance");
  await page.close();
  return context;
}

/** A done Enhanced restore of a 320×240 video (its result is larger than its input). */
async function doneRestore(key: string) {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-compare-"));
  const video = await makeVideo(dir, 2);
  const created = await s.t.call("POST", "/cloud/jobs", {
    key,
    body: jobBody(video, { duration_sec: 2, quality: "enhanced", filename: "garden-1987.mp4" }),
  });
  expect(created.status).toBe(200);
  const put = await fetch(created.body.upload_url, {
    method: "PUT",
    headers: created.body.upload_headers,
    body: new Uint8Array(await readFile(video.path)),
  });
  expect(put.status).toBeLessThan(300);
  const id = created.body.job.id as string;
  expect((await s.t.call("POST", `/cloud/jobs/${id}/start`, { key })).status).toBe(200);
  for (const until = Date.now() + 120_000; ; ) {
    const job = (await s.t.call("GET", `/cloud/jobs/${id}?wait=20`, { key })).body.job;
    if (job.status === "done") return { job, dir };
    if (["failed", "refunded"].includes(job.status) || Date.now() > until) {
      throw new Error(`job ${id} is ${job.status}: ${job.error}`);
    }
  }
}

/** The result's frame size, as ffprobe reads the downloaded file. */
async function resultSize(url: string, dir: string) {
  const file = path.join(dir, "result.mp4");
  writeFileSync(file, new Uint8Array(await (await fetch(url)).arrayBuffer()));
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-select_streams",
    "v:0",
    "-show_entries",
    "stream=width,height",
    "-of",
    "csv=p=0",
    file,
  ]);
  const [width, height] = stdout.trim().split(",").map(Number);
  return { width: width as number, height: height as number };
}

/** Natural and shown size of each picture on the page (after it loaded). */
const pictures = (page: Page) =>
  page.locator("img").evaluateAll(async (imgs: HTMLImageElement[]) => {
    await Promise.all(
      imgs.map((img) =>
        img.complete ? null : new Promise((r) => img.addEventListener("load", r)),
      ),
    );
    return imgs.map((img) => ({
      id: img.id,
      src: img.getAttribute("src"),
      natural: [img.naturalWidth, img.naturalHeight],
      shown: [img.getBoundingClientRect().width, img.getBoundingClientRect().height],
    }));
  });

describe.skipIf(!hasChromium)("the full-size before/after comparison", () => {
  it("opens from the job, both frames at the result's size, with and without JavaScript", async () => {
    const owner = await s.t.newWallet(5000);
    const { job, dir } = await doneRestore(owner.key);
    const size = await resultSize(job.download_url, dir);
    expect(size.width).toBeGreaterThan(320); // Enhanced doubled it: the before frame is scaled

    for (const javaScriptEnabled of [true, false]) {
      const context = await signedIn(owner.key, javaScriptEnabled);
      const page = await context.newPage();
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${s.url}/console`);
      await page.locator(`tr[data-job="${job.id}"] a.compare`).click();
      await page.waitForURL(new RegExp(`/console/jobs/${job.id}/compare$`));
      expect(await page.textContent("h1")).toBe("Before and after: garden-1987.mp4");
      expect(await page.textContent("#frame-facts")).toContain(`${size.width}×${size.height} px`);
      const shown = await pictures(page);
      const frames = shown.filter((p) => p.id === "before" || p.id === "after");
      expect(frames.map((p) => p.id)).toEqual(["before", "after"]);
      for (const p of shown) {
        // Every picture — side by side and one over the other — is the result's size, 1:1.
        expect(p.natural, `${p.id} ${p.src}`).toEqual([size.width, size.height]);
        expect(p.shown, `${p.id} ${p.src}`).toEqual([size.width, size.height]);
      }
      // The two are different pictures (the before one is the input's frame, not the result's).
      const before = await context.request.get(`${s.url}/console/jobs/${job.id}/frame/before`);
      const after = await context.request.get(`${s.url}/console/jobs/${job.id}/frame/after`);
      expect(before.headers()["content-type"]).toBe("image/jpeg");
      expect(Buffer.compare(await before.body(), await after.body())).not.toBe(0);
      // Side by side: both visible in the window at once at 1280 px when the frames fit.
      if (size.width * 2 < 1200) {
        for (const id of ["#before", "#after"])
          expect(await page.locator(id).isVisible()).toBe(true);
      }
      if (process.env.SCREENSHOT_DIR) {
        const file = `compare-js-${javaScriptEnabled ? "on" : "off"}.png`;
        await page.screenshot({
          path: path.join(process.env.SCREENSHOT_DIR, file),
          fullPage: true,
        });
      }
      // The divide is a CSS resize handle: no script.
      expect(await page.locator("script").count()).toBe(0);
      expect(await page.locator("#wipe-before").evaluate((el) => getComputedStyle(el).resize)).toBe(
        "horizontal",
      );
      await page.click("#back");
      await page.waitForSelector("#balance");
      await context.close();
    }
  }, 240_000);

  it("is the owner's only, and goes with the job's files", async () => {
    const owner = await s.t.newWallet(5000);
    const { job } = await doneRestore(owner.key);
    const compare = `${s.url}/console/jobs/${job.id}/compare`;
    const frame = `${s.url}/console/jobs/${job.id}/frame/after`;
    expect((await fetch(frame)).status).toBe(401);
    expect((await fetch(compare, { redirect: "manual" })).status).toBe(303);
    const stranger = await signedIn((await s.t.newWallet(0)).key);
    expect((await stranger.request.get(compare)).status()).toBe(404);
    expect((await stranger.request.get(frame)).status()).toBe(404);
    await stranger.close();
    const mine = await signedIn(owner.key);
    expect(
      (await mine.request.get(`${s.url}/console/jobs/${job.id}/frame/sideways`)).status(),
    ).toBe(404);
    expect((await mine.request.get(compare)).status()).toBe(200);
    for (const which of ["before", "after"]) {
      expect(await s.t.deps.storage.head(`restore/${job.id}/${which}`)).not.toBeNull();
    }
    s.t.clock.set(new Date(Date.parse(job.expires_at) + 1000));
    await sweepJobs(restoreJobs, jobEngineDeps(s.t.platform));
    for (const which of ["before", "after"]) {
      expect(await s.t.deps.storage.head(`restore/${job.id}/${which}`)).toBeNull();
    }
    await mine.close();
    // (Signed in again: the clock moved past the first session's life too.)
    const later = await signedIn(owner.key);
    expect((await later.request.get(compare, { maxRedirects: 0 })).status()).toBe(404);
    await later.close();
  }, 240_000);
});
