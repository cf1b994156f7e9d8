/**
 * Following a long job in few calls: `?wait=` (REST) and `wait_seconds` (MCP) hold the answer
 * until the status changes or the time is up — progress alone ends the wait only with
 * `until: "progress"` (one definition for both surfaces) — and an MCP client that sends a
 * progressToken gets progress notifications while it waits. Real HTTP, the official SDK
 * clients after tools/list, a worker loop with short heartbeats and an engine that takes about
 * 3 s, reporting progress ten times.
 */
import { writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RestoreEngine } from "../../src/engines/contracts.js";
import type { FeatureFactory } from "../../src/feature.js";
import { clipsFeature } from "../../src/features/clips.js";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { restoreFeature } from "../../src/features/restore.js";
import { createDbWorkSource } from "../../src/jobs/work-source.js";
import { silentLogger } from "../../src/logger.js";
import { createRestoreExecutor } from "../../src/workers/executors/restore.js";
import { startWorkerLoop } from "../../src/workers/loop.js";
import { stubClassifier } from "../clips/helpers.js";
import { CLIENTS, call, connect, type Json, refusal } from "../mcp/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";

const STEPS = 10;
const STEP_MS = 300;
/** Restores nothing, slowly: ten progress reports 300 ms apart, then a small "result". */
const slowEngine: RestoreEngine = {
  name: "slow-test",
  measureDurationSec: async () => 2,
  async restore(job) {
    for (let i = 1; i <= STEPS; i++) {
      await new Promise((r) => setTimeout(r, STEP_MS));
      job.onProgress?.(i / STEPS);
    }
    await writeFile(job.outputPath, new Uint8Array(2048).fill(1));
    return { durationSec: 2, width: 320, height: 240, plan: {}, elapsedMs: STEPS * STEP_MS };
  },
};

const slowRestore: FeatureFactory = async (p) => ({
  ...(await restoreFeature()(p)),
  executors: [createRestoreExecutor({ engine: slowEngine })],
});

let s: ServedApp;
let stop: () => Promise<void>;
beforeAll(async () => {
  s = await serveTestApp({
    features: [
      slowRestore,
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
      paymentsFeature(),
      mcpFeature(),
    ],
  });
  const source = await createDbWorkSource(
    s.t.database,
    s.t.features.flatMap((f) => f.queues ?? []),
    { leaseMs: 60_000, pollMs: 100 },
  );
  // Heartbeats (which carry progress to readers) every 100 ms instead of every 5 s.
  const loop = startWorkerLoop({
    workerId: "wait-w0",
    source,
    executors: s.t.features.flatMap((f) => f.executors ?? []),
    log: silentLogger,
    claimWaitMs: 200,
    heartbeatMs: 100,
  });
  stop = async () => {
    await loop.stop(5000);
    await source.close();
  };
});
afterAll(async () => {
  await stop?.();
  await s?.close();
});

async function rest(method: string, p: string, opts: { key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${s.url}${p}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function agentKey() {
  const owner = await s.t.newWallet(10_000);
  const made = await rest("POST", "/wallet/keys", {
    key: owner.key,
    body: { limit_cents: 5000, ask_before_spending: false },
  });
  return made.body.key as string;
}

const BYTES = new Uint8Array(4096).fill(9);

/** A balance-paid restore, uploaded and started: processing, waiting for the worker. */
async function startedRestore(key: string): Promise<string> {
  const created = (
    await rest("POST", "/cloud/jobs", {
      key,
      body: {
        duration_sec: 2,
        quality: "faithful",
        filename: "v.mp4",
        content_type: "video/mp4",
        size: BYTES.length,
      },
    })
  ).body;
  const put = await fetch(created.upload_url, {
    method: "PUT",
    headers: created.upload_headers,
    body: BYTES,
  });
  expect(put.status).toBe(200);
  const started = await rest("POST", `/cloud/jobs/${created.job.id}/start`, { key });
  expect(started.body.job.status).toBe("processing");
  return created.job.id;
}

describe("REST ?wait=", () => {
  it("holds until the status changes: one read follows a 3 s restore to done", async () => {
    const id = await startedRestore(await agentKey());
    const t0 = Date.now();
    const read = await rest("GET", `/cloud/jobs/${id}?wait=20`);
    const ms = Date.now() - t0;
    expect(read.body.job.status).toBe("done");
    expect(read.body.job.download_url).toEqual(expect.any(String));
    expect(ms).toBeGreaterThan(STEPS * STEP_MS - 500);
  });

  it("with until=progress answers at the first progress report", async () => {
    const id = await startedRestore(await agentKey());
    const read = await rest("GET", `/cloud/jobs/${id}?wait=20&until=progress`);
    expect(read.body.job.status).toBe("processing");
    expect(read.body.job.progress).toBeGreaterThan(0);
    expect(read.body.job.progress).toBeLessThan(1);
    await rest("GET", `/cloud/jobs/${id}?wait=20`);
  });

  it("refuses an unknown until, naming the query parameter", async () => {
    const id = await startedRestore(await agentKey());
    const bad = await rest("GET", `/cloud/jobs/${id}?wait=1&until=soon`);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_field");
    expect(bad.body.detail).toMatch(/until/);
    await rest("GET", `/cloud/jobs/${id}?wait=20`);
  });
});

describe("MCP wait_seconds", () => {
  it.each(CLIENTS)(
    "%s: follows a restore in one get_restore call, with progress notifications",
    async (kind) => {
      const key = await agentKey();
      const client = await connect(s.url, key, { client: kind });
      const id = await startedRestore(key);
      const seen: Json[] = [];
      let calls = 0;
      let job: Json;
      do {
        calls++;
        const res = await client.callTool(
          { name: "get_restore", arguments: { job_id: id, wait_seconds: 25 } },
          { onprogress: (p: Json) => seen.push(p) },
        );
        expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
        job = res.structuredContent.job;
      } while (job.status === "processing" && calls < 5);
      expect(job.status).toBe("done");
      expect(calls).toBe(1);
      // Every report the waiting call saw, increasing, out of 1.
      expect(seen.length).toBeGreaterThanOrEqual(3);
      const values = seen.map((p) => p.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
      expect(seen[0]).toMatchObject({ total: 1, message: expect.stringMatching(/% done$/) });
      await client.close();
    },
  );

  it("until progress answers at the first report; a bad until is a refusal naming the field", async () => {
    const key = await agentKey();
    const client = await connect(s.url, key);
    const id = await startedRestore(key);
    const res = await call(client, "get_restore", {
      job_id: id,
      wait_seconds: 25,
      until: "progress",
    });
    expect(res.structuredContent.job.status).toBe("processing");
    expect(res.structuredContent.job.progress).toBeGreaterThan(0);
    const bad = refusal(await call(client, "get_restore", { job_id: id, until: "soon" }));
    expect(bad).toMatchObject({ code: "invalid_field" });
    expect(bad.detail).toMatch(/^until:/);
    await call(client, "get_restore", { job_id: id, wait_seconds: 25 });
    await client.close();
  });
});
