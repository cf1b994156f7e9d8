/**
 * A kind added to the registry is served by everything below composition without a change
 * there: the test-only "echo" kind (test/jobs/echo-kind.ts, one file) is listed beside the
 * real kinds, and its uploads pass the upload guard by its own rules, a `kinora worker`
 * process claims and completes it over the HTTP worker API with the executors the registry
 * gives, and /metrics reports its queue — none of which names it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createTestApp, TEST_PUBLIC_URL, type TestApp } from "../test/app.js";
import {
  createEchoJob,
  createEchoTable,
  echoInputKey,
  echoJobs,
  echoKind,
  waitForEchoDone,
} from "../test/jobs/echo-kind.js";
import { loadConfig } from "./config.js";
import { jobEngineDeps } from "./feature.js";
import { workerExecutors } from "./features/job-kind.js";
import { featuresFor } from "./features.js";
import { JOB_KINDS } from "./job-kinds.js";
import { moveJob } from "./jobs/move.js";
import { startRemoteWorkers } from "./worker.js";

const TOKEN = "worker-token-0123456789";
const KINDS = [...JOB_KINDS, echoKind];
let t: TestApp;
let scratch: string;

beforeAll(async () => {
  t = await createTestApp({ features: featuresFor(KINDS), env: { WORKER_TOKEN: TOKEN } });
  await createEchoTable(t.deps.db);
  scratch = mkdtempSync(path.join(tmpdir(), "kinora-echo-worker-"));
});
afterAll(async () => {
  await t.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A one-shot upload link for the job's input, as a create route would hand out. */
async function putInput(id: string, text: string) {
  const body = new TextEncoder().encode(text);
  const link = await t.platform.storage.presignUpload(echoInputKey(id), {
    contentType: "text/plain",
    sizeBytes: body.length,
    expiresInSec: 600,
  });
  const res = await t.fetchUrl(link.url, { method: "PUT", headers: link.headers, body });
  return { status: res.status, detail: await res.text() };
}

describe("a kind added to the registry", () => {
  it("gets one executor per kind for `kinora worker`, in registry order", () => {
    const config = loadConfig({ DATA_DIR: scratch });
    expect(workerExecutors(KINDS, config).map((e) => e.kind)).toEqual(["restore", "clip", "echo"]);
  });

  it("takes uploads by its own rules, runs on a remote worker and shows in /metrics", async () => {
    const { walletId } = await t.newWallet(100);
    const id = await createEchoJob(jobEngineDeps(t.platform), walletId, 3);
    // The upload guard knows echo's file layout and upload rule: one upload while it waits.
    expect((await putInput(id, "hello registry")).status).toBe(200);
    const again = await putInput(id, "HELLO AGAIN");
    expect(again.status).toBe(409);
    await moveJob(t.deps.db, echoJobs, id, "start", t.clock.now(), { queued_at: t.clock.now() });
    const late = await putInput(id, "too late");
    expect(late.status).toBe(409);
    expect(late.detail).toMatch(/echo job is queued/);

    const metricsBefore = await scrape();
    expect(metricsBefore).toMatch(/kinora_job_queue_depth\{kind="echo"\} 1/);

    // `kinora worker` with the registry's executors, over the HTTP worker API only.
    const inProcess = (url: string, init?: RequestInit) => t.fetchUrl(url, init);
    const worker = await startRemoteWorkers(
      [],
      {
        KINORA_SERVER: TEST_PUBLIC_URL,
        WORKER_TOKEN: TOKEN,
        DATA_DIR: scratch,
        LOG_LEVEL: "silent",
      },
      { kinds: [echoKind], fetch: inProcess, seams: { fetch: inProcess }, claimWaitMs: 200 },
    );
    let row: Awaited<ReturnType<typeof waitForEchoDone>>;
    try {
      row = await waitForEchoDone(t.deps.db, id);
    } finally {
      await worker.stop(1000);
    }
    expect(row).toMatchObject({ status: "done", result: "HELLO REGISTRY", attempts: 1 });
    const metricsAfter = await scrape();
    expect(metricsAfter).toMatch(/kinora_job_queue_depth\{kind="echo"\} 0/);
    expect(metricsAfter).toMatch(/kinora_jobs\{kind="echo",status="awaiting_upload"\} 0/);
  });
});

async function scrape() {
  const res = await t.app.request("/metrics", {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(res.status).toBe(200);
  return res.text();
}
