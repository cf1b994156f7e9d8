/**
 * A long restore's segments in the console (issue 37 item 4): a job handed to its segments shows
 * how many are done, running and waiting under its progress, in real Chromium, read through the
 * restore's list operation (the view's `segments`, which REST shows too); a job in one piece
 * shows none. No ffmpeg: a worker over the worker API reports the analysis's hand-off and one
 * segment's result, as a real worker does.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleFeature } from "../../src/features/console.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { restoreSegmentsFeature } from "../../src/kinds/restore-segments/kind.js";
import { createHttpWorkSource } from "../../src/workers/http-source.js";
import { uploadOutput } from "../../src/workers/transfer.js";
import { hasChromium, launchChromium } from "../browser.js";
import { upload } from "../restore/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";

const TOKEN = "console-segments-token-0123";
const dir = mkdtempSync(path.join(tmpdir(), "kinora-console-seg-"));
let s: ServedApp;
let browser: Browser | undefined;

beforeAll(async () => {
  writeFileSync(path.join(dir, "tape.mp4"), Buffer.alloc(64, 1));
  writeFileSync(path.join(dir, "part.mp4"), Buffer.alloc(16, 2));
  s = await serveTestApp({
    features: [
      restoreFeature({ noExecutor: true }),
      restoreSegmentsFeature({ noExecutor: true }),
      consoleFeature(),
    ],
    env: { WORKER_TOKEN: TOKEN, LOG_LEVEL: "silent" },
  });
  s.t.clock.set(new Date());
  if (hasChromium) browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function startedJob(key: string, filename: string) {
  const body = {
    duration_sec: 36,
    quality: "faithful",
    filename,
    content_type: "video/mp4",
    size: 64,
  };
  const created = (await s.t.call("POST", "/cloud/jobs", { key, body })).body;
  expect(await upload(s.t, created, path.join(dir, "tape.mp4"))).toBeLessThan(300);
  await s.t.call("POST", `/cloud/jobs/${created.job.id}/start`, { key });
  return created.job.id as string;
}

const segment = (index: number) => ({
  index,
  startSec: index * 12,
  endSec: (index + 1) * 12,
  frames: 300,
  onKeyframe: true,
  last: index === 2,
});

describe("the console's restores", () => {
  it("shows a long job's segments done, running and waiting; a one-piece job none", async () => {
    const owner = await s.t.newWallet(10_000);
    const long = await startedJob(owner.key, "long-tape.mp4");
    const short = await startedJob(owner.key, "short-tape.mp4");
    const worker = createHttpWorkSource({ server: s.url, token: TOKEN });
    const signal = new AbortController().signal;
    // Both analysed by one worker: the long one handed to three segments, the short one kept.
    for (let i = 0; i < 2; i++) {
      const item = await worker.claim(["restore"], "w-console", 0);
      if (item?.jobId === long) {
        const cut = { frameSec: 0.04, startSec: 0, endSec: 36, segments: [0, 1, 2].map(segment) };
        await worker.complete(item, "w-console", {
          outputBytes: 0,
          meta: { segmented: { plan: { audio: null }, cut } },
        });
      }
    }
    // One segment restored and stored, one running, one waiting.
    const first = await worker.claim(["restoreseg"], "w-console", 0);
    const second = await worker.claim(["restoreseg"], "w-console", 0);
    if (!first || !second) throw new Error("no segment to claim");
    await uploadOutput(fetch, first, path.join(dir, "part.mp4"), "video/mp4", signal);
    await worker.complete(first, "w-console", { outputBytes: 16, meta: {} });

    const read = (id: string) => s.t.call("GET", `/cloud/jobs/${id}`, { key: owner.key });
    expect((await read(long)).body.job.segments).toEqual({ done: 1, running: 1, waiting: 1 });
    expect((await read(short)).body.job.segments).toBeNull();
    if (!browser) return console.warn("no Chromium here: the console's page was not checked");

    const page = await browser.newPage();
    await page.goto(`${s.url}/console`);
    await page.fill("#wallet_key", owner.key);
    await page.click("button:has-text('Sign in')");
    await page.waitForSelector("#balance");
    const row = page.locator(`tr[data-job="${long}"]`);
    await expect(row.locator(".segments").textContent()).resolves.toBe(
      "3 segments: 1 done · 1 running · 1 waiting",
    );
    expect(await row.locator(".segments").getAttribute("data-running")).toBe("1");
    expect(await page.locator(`tr[data-job="${short}"] .segments`).count()).toBe(0);
    await page.close();
  });
});
