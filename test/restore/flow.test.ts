/**
 * Cloud restore end to end with the real ffmpeg engine on tiny generated videos: in-process
 * workers, a lying duration refunded by the real length check, and a remote worker over the
 * HTTP worker API of a real server listening on 127.0.0.1.
 */

import { mkdtempSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { getRequestListener } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import type { WorkSource } from "../../src/jobs/work.js";
import { createDbWorkSource } from "../../src/jobs/work-source.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { silentLogger } from "../../src/logger.js";
import { createLocalBlobStore } from "../../src/storage/local-store.js";
import { createHttpWorkSource } from "../../src/workers/http-source.js";
import { startWorkerLoop } from "../../src/workers/loop.js";
import { createTestApp, type TestApp } from "../app.js";
import { balanceOf, ffprobeDuration, jobBody, makeVideo, upload } from "./helpers.js";

const dir = mkdtempSync(path.join(tmpdir(), "kinora-flow-"));
let short: { path: string; sizeBytes: number };
let long: { path: string; sizeBytes: number };
beforeAll(async () => {
  [short, long] = await Promise.all([makeVideo(dir, 1.5), makeVideo(dir, 5, "long.mp4")]);
});

async function waitFor(t: TestApp, id: string, statuses: string[], timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = (await t.call("GET", `/cloud/jobs/${id}`)).body.job;
    if (statuses.includes(job.status)) return job;
    if (Date.now() > until) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function createAndStart(t: TestApp, key: string, video: typeof short, extra = {}) {
  const created = (await t.call("POST", "/cloud/jobs", { key, body: jobBody(video, extra) })).body;
  expect(await upload(t, created, video.path)).toBeLessThan(300);
  const started = await t.call("POST", `/cloud/jobs/${created.job.id}/start`, { key });
  expect(started.status).toBe(200);
  return created.job.id as string;
}

describe("in-process workers", () => {
  let t: TestApp;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    t = await createTestApp({
      features: [restoreFeature({ fetch: (url, init) => t.fetchUrl(url, init) })],
    });
    const source = await createDbWorkSource(
      t.database,
      t.features.flatMap((f) => f.queues ?? []),
      { leaseMs: 60_000, pollMs: 200 },
    );
    const loop = startWorkerLoop({
      workerId: "test-w0",
      source,
      executors: t.features.flatMap((f) => f.executors ?? []),
      log: silentLogger,
      claimWaitMs: 500,
    });
    stop = async () => {
      await loop.stop(5000);
      await source.close();
    };
  });
  afterAll(async () => {
    await stop();
    await t.close();
  });

  it("restores an uploaded video: done, download_url, a playable MP4", async () => {
    const { key } = await t.newWallet(1000);
    const id = await createAndStart(t, key, short, { duration_sec: 1.5 });
    const job = await waitFor(t, id, ["done", "failed", "refunded"]);
    expect(job).toMatchObject({ status: "done", progress: 1, error: null });
    expect(job.measured_duration_sec).toBeCloseTo(1.5, 0);
    const res = await t.fetchUrl(job.download_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain("home-movie-restored.mp4");
    const out = path.join(dir, "restored.mp4");
    await writeFile(out, new Uint8Array(await res.arrayBuffer()));
    expect(await ffprobeDuration(out)).toBeCloseTo(1.5, 0);
    // The input is deleted as soon as the result exists.
    expect(await t.deps.storage.head(`restore/${id}/input`)).toBeNull();
  });

  it("refunds a video much longer than declared, to the balance and the key allowance", async () => {
    const owner = await t.newWallet(1000);
    const agent = await t.newAgentKey(owner.key, 400, { askBeforeSpending: false });
    const id = await createAndStart(t, agent.key, long, { duration_sec: 1 });
    expect(await balanceOf(t, owner.walletId)).toBe(701);
    const job = await waitFor(t, id, ["done", "failed", "refunded"]);
    expect(job.status).toBe("refunded");
    expect(job.error).toMatch(/is 0\.1 min long but 0\.0 min was declared; it was refunded/);
    expect(await balanceOf(t, owner.walletId)).toBe(1000);
    const wallet = await t.call("GET", "/wallet", { key: agent.key });
    expect(wallet.body.wallet.agent_key.remaining_cents).toBe(400);
  });
  it("fails and refunds a file that is not a video, saying so", async () => {
    const { key, walletId } = await t.newWallet(1000);
    const junk = path.join(dir, "junk.mp4");
    await writeFile(junk, new Uint8Array(4096).fill(7));
    const id = await createAndStart(t, key, { path: junk, sizeBytes: 4096 });
    const job = await waitFor(t, id, ["done", "failed", "refunded"]);
    expect(job.status).toBe("failed");
    expect(job).toMatchObject({ error_code: "corrupt" });
    expect(job.error).toMatch(/could not be read as a video/);
    expect(job.error).not.toMatch(/ffmpeg|ffprobe|moov|codec/i);
    expect(await balanceOf(t, walletId)).toBe(1000);
  });
});

describe("remote worker over the HTTP worker API", () => {
  let t: TestApp;
  let server: ReturnType<typeof createServer>;
  let url: string;
  const token = "worker-token-0123456789";
  beforeAll(async () => {
    let handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, s) => s.end();
    server = createServer((req, res) => handler(req, res));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp({
      features: [restoreFeature({ noExecutor: true })],
      env: { WORKER_TOKEN: token },
      platform: (p) => ({
        ...p,
        publicUrl: url,
        storage: createLocalBlobStore({
          rootDir: path.join(dir, "remote-files"),
          publicBaseUrl: url,
          signer: p.signer,
        }),
      }),
    });
    handler = getRequestListener(t.app.fetch);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await t.close();
  });

  it("refuses a wrong token and answers 503 without WORKER_TOKEN", async () => {
    const bad = createHttpWorkSource({ server: url, token: "wrong-token-0123456789" });
    await expect(bad.claim(["restore"], "x", 0)).rejects.toMatchObject({ status: 401 });
  });

  it("claims, restores with the real engine and completes over HTTP", async () => {
    const { key } = await t.newWallet(1000);
    const source: WorkSource = createHttpWorkSource({ server: url, token });
    const id = await createAndStart(t, key, short, { duration_sec: 1.5 });
    const { workerExecutors } = await import("../../src/kinds/kind.js");
    const { JOB_KINDS } = await import("../../src/job-kinds.js");
    const loop = startWorkerLoop({
      workerId: "remote-1",
      source,
      executors: workerExecutors(JOB_KINDS, loadConfig({})),
      log: silentLogger,
      claimWaitMs: 2000,
      heartbeatMs: 500,
    });
    try {
      const job = await waitFor(t, id, ["done", "failed", "refunded"]);
      expect(job.status).toBe("done");
      const res = await fetch(job.download_url);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    } finally {
      await loop.stop(5000);
    }
  });
});
