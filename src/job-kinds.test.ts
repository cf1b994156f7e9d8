/**
 * A kind is one folder plus one registry line: the test-only "echo" kind (test/kinds/echo/,
 * its table made by the test as a migration would) is listed beside the real kinds here and
 * nowhere else, and every surface serves it unchanged — REST, MCP (its own tools, cancel_job,
 * get_prices, tasks, the instructions), the console's job tables, the upload guard, a `kinora
 * worker` process over the HTTP worker API, and /metrics; the SDK and `kinora` (get, jobs,
 * cancel), once regenerated, in test/kinds/echo/client.test.ts. If a surface needed a hand edit
 * for a new kind, echo would be missing from it and this test would fail (src/kinds/registry-
 * folders.test.ts fails when a kind is named outside its folder at all).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN } from "../test/app.js";
import { consoleFor, consoleRow } from "../test/jobs/console-session.js";
import { echoKind } from "../test/kinds/echo/kind.js";
import { createEchoTable } from "../test/kinds/echo/services/table.js";
import { call, connect, type Json, refusal, rpc } from "../test/mcp/helpers.js";
import { type ServedApp, serveTestApp } from "../test/served.js";
import { loadConfig } from "./config.js";
import { featuresFor } from "./features.js";
import { JOB_KINDS } from "./job-kinds.js";
import { workerExecutors } from "./kinds/kind.js";
import { startRemoteWorkers } from "./worker.js";

const TOKEN = "worker-token-0123456789";
/** The registry line a real kind adds to src/job-kinds.ts. */
const KINDS = [...JOB_KINDS, echoKind];
let s: ServedApp;
let scratch: string;

beforeAll(async () => {
  s = await serveTestApp({ features: featuresFor(KINDS), env: { WORKER_TOKEN: TOKEN } });
  await createEchoTable(s.t.deps.db);
  scratch = mkdtempSync(path.join(tmpdir(), "kinora-echo-worker-"));
});
afterAll(async () => {
  await s?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** An agent key that may spend without asking, and its wallet's key. */
async function agent(balance = 1_000) {
  const owner = await s.t.newWallet(balance);
  const key = await s.t.newAgentKey(owner.key, 500, { askBeforeSpending: false });
  return { owner, key: key.key };
}

/** POST /echo/jobs and PUT the text: the echo's id, ready to start. */
async function uploadedEcho(key: string, text: string) {
  const created = await s.t.call("POST", "/echo/jobs", {
    key,
    body: { text_bytes: Buffer.byteLength(text) },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const put = await fetch(created.body.upload_url, {
    method: "PUT",
    headers: created.body.upload_headers,
    body: text,
  });
  expect(put.status).toBe(200);
  // The upload guard applies echo's own rule: its input link takes one upload.
  const again = await fetch(created.body.upload_url, {
    method: "PUT",
    headers: created.body.upload_headers,
    body: text,
  });
  expect(again.status).toBe(409);
  return created.body.job.id as string;
}

describe("a kind added by one registry line", () => {
  it("gets one executor per kind for `kinora worker`, in registry order", () => {
    const config = loadConfig({ DATA_DIR: scratch });
    expect(workerExecutors(KINDS, config).map((e) => e.kind)).toEqual(KINDS.map((k) => k.name));
  });

  it("is served over REST: create, upload (once), start, read, list; a second upload is refused", async () => {
    const { key } = await agent();
    const id = await uploadedEcho(key, "hello rest");
    const started = await s.t.call("POST", `/echo/jobs/${id}/start`, { key });
    expect(started.status).toBe(200);
    expect(started.body.job).toMatchObject({ id, status: "queued" });
    expect(started.body.job.queue).toMatchObject({ state: "queued" });
    const list = await s.t.call("GET", "/echo/jobs", { key });
    expect(list.body.jobs.map((j: Json) => j.id)).toContain(id);
    const prices = await s.t.call("GET", "/echo/prices");
    expect(prices.body).toEqual({ price_cents: 7, max_text_bytes: 1024 });
    const doc = await s.t.call("GET", "/openapi.json");
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(["/echo/jobs", "/echo/jobs/{id}/start", "/echo/prices"]),
    );
  });

  it("runs on a remote `kinora worker` over the HTTP worker API, and shows in /metrics", async () => {
    const { key } = await agent();
    const id = await uploadedEcho(key, "hello registry");
    await s.t.call("POST", `/echo/jobs/${id}/start`, { key });
    const before = depth(await scrape());
    expect(before).toBeGreaterThanOrEqual(1);
    const worker = await startRemoteWorkers(
      [],
      { KINORA_SERVER: s.url, WORKER_TOKEN: TOKEN, DATA_DIR: scratch, LOG_LEVEL: "silent" },
      { kinds: [echoKind], claimWaitMs: 200 },
    );
    let done: Json;
    try {
      done = await s.t.call("GET", `/echo/jobs/${id}?wait=20`, { key });
      while (done.body.job.status !== "done" && done.body.job.status !== "failed") {
        done = await s.t.call("GET", `/echo/jobs/${id}?wait=20`, { key });
      }
    } finally {
      await worker.stop(1000);
    }
    expect(done.body.job).toMatchObject({ status: "done", result: "HELLO REGISTRY" });
    const after = await scrape();
    expect(depth(after)).toBeLessThan(before);
    expect(after).toMatch(/kinora_jobs\{kind="echo",status="awaiting_upload"\} \d/);
  });
});

describe("the console, with no edit for the kind", () => {
  it("lists the wallet's echoes in a table of their own, each job in its row", async () => {
    const { owner, key } = await agent();
    const id = await uploadedEcho(key, "hello console");
    const html = await (await consoleFor(s.t, owner.key))();
    expect(html).toMatch(/echoes/i);
    expect(consoleRow(html, id)).toMatch(/awaiting.upload/i);
  });
});

describe("MCP, with no edit for the kind", () => {
  it("lists its tools, tells its flow, and gives its prices in get_prices", async () => {
    const { key } = await agent();
    const client = await connect(s.url, key);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t: Json) => t.name);
      expect(names).toEqual(expect.arrayContaining(["make_echo", "get_echo", "start_echo"]));
      expect(client.getInstructions()).toMatch(/make_echo \(7 cents\)/);
      const prices = await call(client, "get_prices");
      expect(prices.structuredContent.echo).toEqual({ price_cents: 7, max_text_bytes: 1024 });
      // Every kind callers reach (a restore's segments are reached through their restore).
      const priced = KINDS.filter((k) => k.roles).map((k) => k.name);
      expect(Object.keys(prices.structuredContent).sort()).toEqual(priced.sort());
    } finally {
      await client.close();
    }
  });

  it("cancel_job cancels an echo by its id and refunds it; an unknown prefix names every kind's", async () => {
    const { owner, key } = await agent();
    const created = await s.t.call("POST", "/echo/jobs", { key, body: { text_bytes: 5 } });
    const client = await connect(s.url, key);
    try {
      const res = await call(client, "cancel_job", { job_id: created.body.job.id });
      expect(res.isError, JSON.stringify(res)).toBeFalsy();
      expect(res.structuredContent.job).toMatchObject({ status: "cancelled" });
      expect(res.structuredContent.wallet.balance_cents).toBe(1_000);
      const unknown = refusal(await call(client, "cancel_job", { job_id: "zz_123" }));
      expect(unknown.detail).toMatch(/echo_ \(echoes\)/);
      expect(unknown.detail).toMatch(/list_echoes/);
    } finally {
      await client.close();
    }
    const wallet = await s.t.call("GET", "/wallet", { key: owner.key });
    expect(wallet.body.wallet.balance_cents).toBe(1_000);
  });

  it("runs start_echo as a task (2025-11-25) followed by get_echo", async () => {
    const { key } = await agent();
    const id = await uploadedEcho(key, "hello task");
    const res = await rpc(
      s.url,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "start_echo", arguments: { job_id: id }, task: {} },
      },
      { authorization: `Bearer ${key}`, "mcp-protocol-version": "2025-11-25" },
    );
    const taskId = res.body.result?.task?.taskId;
    expect(taskId, JSON.stringify(res.body)).toEqual(expect.any(String));
    const legacy = { authorization: `Bearer ${key}`, "mcp-protocol-version": "2025-11-25" };
    const got = await rpc(
      s.url,
      { jsonrpc: "2.0", id: 4, method: "tasks/get", params: { taskId } },
      legacy,
    );
    expect(got.body.result).toMatchObject({ taskId, status: "working" });
    const list = await rpc(s.url, { jsonrpc: "2.0", id: 5, method: "tools/list" }, legacy);
    const tasked = list.body.result.tools
      .filter((t: Json) => t.execution?.taskSupport === "optional")
      .map((t: Json) => t.name);
    expect(tasked).toEqual(expect.arrayContaining(["make_echo", "start_echo"]));
  });
});

/** Echo's queue depth in a scrape. */
function depth(metrics: string): number {
  const m = /kinora_job_queue_depth\{kind="echo"\} (\d+)/.exec(metrics);
  if (!m) throw new Error("no echo queue depth in /metrics");
  return Number(m[1]);
}

async function scrape() {
  const res = await s.t.app.request("/metrics", {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(res.status).toBe(200);
  return res.text();
}
