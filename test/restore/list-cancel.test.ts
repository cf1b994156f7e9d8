/**
 * Finding and cancelling restores, over real HTTP and through the official MCP SDK client
 * (after tools/list): list_restores / GET /cloud/jobs newest first with cursor paging, an agent
 * key seeing only its own jobs; list_clips paging; cancelling a restore whose file arrived,
 * before or after its start (refunded once, the file deleted), and the 409 of an ended one.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, connect, type Json, refusal } from "../mcp/helpers.js";
import { apiOnlyFeatures, type ServedApp, serveTestApp } from "../served.js";
import { jobBody, makeVideo } from "./helpers.js";

let s: ServedApp;
let video: { path: string; sizeBytes: number };
beforeAll(async () => {
  video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-list-")), 1);
  s = await serveTestApp({
    features: apiOnlyFeatures(),
  });
});
afterAll(async () => {
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

async function agentKey(walletKey: string) {
  const made = await rest("POST", "/wallet/keys", {
    key: walletKey,
    body: { limit_cents: 5000, ask_before_spending: false },
  });
  return made.body.key as string;
}

/** Creates a restore awaiting its upload, a second later than the one before. */
async function createRestore(key: string): Promise<Json> {
  s.t.clock.advance(1000);
  const res = await rest("POST", "/cloud/jobs", { key, body: jobBody(video) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function ledger(jobId: string) {
  const rows = await s.t.deps.db
    .selectFrom("ledger_entries")
    .select(["kind", "amount_cents"])
    .where("job_id", "=", jobId)
    .orderBy("id")
    .execute();
  return rows.map((r) => [r.kind, Number(r.amount_cents)]);
}

describe("list_restores and GET /cloud/jobs", () => {
  it("pages newest first; an agent key sees only its own jobs, the wallet key all", async () => {
    const owner = await s.t.newWallet(10_000);
    const [a, b] = [await agentKey(owner.key), await agentKey(owner.key)];
    const walletJob = (await createRestore(owner.key)).job.id;
    const aJobs: string[] = [];
    for (let i = 0; i < 3; i++) aJobs.push((await createRestore(a)).job.id);
    const bJob = (await createRestore(b)).job.id;
    const other = await s.t.newWallet(1000);
    const otherJob = (await createRestore(other.key)).job.id;

    const client = await connect(s.url, a);
    const first = await call(client, "list_restores", { limit: 2 });
    expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
    expect(first.structuredContent.jobs.map((j: Json) => j.id)).toEqual([aJobs[2], aJobs[1]]);
    expect(first.structuredContent.next_cursor).toEqual(expect.any(String));
    const second = await call(client, "list_restores", {
      limit: 2,
      cursor: first.structuredContent.next_cursor,
    });
    expect(second.structuredContent).toEqual({ jobs: [expect.any(Object)], next_cursor: null });
    expect(second.structuredContent.jobs[0].id).toBe(aJobs[0]);
    // Another key's cursor shows this key's jobs only: a cursor is a position, not a grant.
    const bList = (await rest("GET", `/cloud/jobs?limit=5`, { key: b })).body;
    expect(bList.jobs.map((j: Json) => j.id)).toEqual([bJob]);
    const bFromCursor = await rest(
      "GET",
      `/cloud/jobs?cursor=${encodeURIComponent(first.structuredContent.next_cursor)}`,
      { key: b },
    );
    expect(bFromCursor.body.jobs.map((j: Json) => j.id)).toEqual([]);
    // REST, the same key: the same answer as the tool.
    const aRest = (await rest("GET", "/cloud/jobs", { key: a })).body;
    expect(aRest.jobs.map((j: Json) => j.id)).toEqual([...aJobs].reverse());
    expect(aRest.jobs.map((j: Json) => j.id)).not.toContain(walletJob);
    expect(aRest.jobs.map((j: Json) => j.id)).not.toContain(bJob);
    // The wallet key sees all five of its wallet, never another wallet's.
    const all = (await rest("GET", "/cloud/jobs?limit=100", { key: owner.key })).body;
    expect(all.jobs.map((j: Json) => j.id)).toEqual([bJob, ...[...aJobs].reverse(), walletJob]);
    expect(all.jobs.map((j: Json) => j.id)).not.toContain(otherJob);
    // A malformed cursor is the caller's mistake, named as the surface calls it.
    const bad = refusal(await call(client, "list_restores", { cursor: "nope" }));
    expect(bad).toMatchObject({ code: "invalid_field" });
    expect(bad.detail).toMatch(/cursor/);
    await client.close();
  });
});

describe("list_clips paging", () => {
  it("pages newest first with next_cursor; another key's clips never show", async () => {
    const owner = await s.t.newWallet(10_000);
    const [a, b] = [await agentKey(owner.key), await agentKey(owner.key)];
    const client = await connect(s.url, a);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      s.t.clock.advance(1000);
      const res = await call(client, "make_clip", { prompt: "rain", content_type: "image/png" });
      made.push(res.structuredContent.job.id);
    }
    const bClient = await connect(s.url, b);
    s.t.clock.advance(1000);
    await call(bClient, "make_clip", { prompt: "snow", content_type: "image/png" });
    const first = (await call(client, "list_clips", { limit: 2 })).structuredContent;
    expect(first.clips.map((c: Json) => c.id)).toEqual([made[2], made[1]]);
    const second = (await call(client, "list_clips", { limit: 2, cursor: first.next_cursor }))
      .structuredContent;
    expect(second.clips.map((c: Json) => c.id)).toEqual([made[0]]);
    expect(second.next_cursor).toBeNull();
    await client.close();
    await bClient.close();
  });
});

describe("cancelling a restore that was uploaded, started or not", () => {
  async function uploaded(key: string) {
    const created = await createRestore(key);
    const put = await fetch(created.upload_url, {
      method: "PUT",
      headers: created.upload_headers,
      body: readFileSync(video.path),
    });
    expect(put.status).toBe(200);
    return created.job.id as string;
  }

  it("REST: cancelled, refunded once, the file deleted; start then refused", async () => {
    const owner = await s.t.newWallet(1000);
    const id = await uploaded(owner.key);
    expect(await s.t.deps.storage.head(`restore/${id}/input`)).not.toBeNull();
    const cancelled = await rest("POST", `/cloud/jobs/${id}/cancel`, { key: owner.key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.job.status).toBe("cancelled");
    expect(cancelled.body.wallet.balance_cents).toBe(1000);
    expect(await s.t.deps.storage.head(`restore/${id}/input`)).toBeNull();
    const again = await rest("POST", `/cloud/jobs/${id}/cancel`, { key: owner.key });
    expect(again.status).toBe(200);
    expect(await ledger(id)).toEqual([
      ["charge", -299],
      ["refund", 299],
    ]);
    const start = await rest("POST", `/cloud/jobs/${id}/start`, { key: owner.key });
    expect(start.status).toBe(409);
    expect(start.body.code).toBe("wrong_state");
  });

  it("MCP cancel_job: refunded to the balance and the key's allowance, once", async () => {
    const owner = await s.t.newWallet(1000);
    const key = await agentKey(owner.key);
    const id = await uploaded(key);
    const client = await connect(s.url, key);
    const res = await call(client, "cancel_job", { job_id: id });
    expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
    expect(res.structuredContent.job.status).toBe("cancelled");
    expect(res.structuredContent.wallet).toMatchObject({ balance_cents: 1000 });
    expect(res.structuredContent.wallet.agent_key.spent_cents).toBe(0);
    const again = await call(client, "cancel_job", { job_id: id });
    expect(again.structuredContent.job.status).toBe("cancelled");
    expect(await ledger(id)).toEqual([
      ["charge", -299],
      ["refund", 299],
    ]);
    // A started job may still be cancelled (refunded once); an ended one is past cancelling.
    const startedId = await uploaded(key);
    await call(client, "start_restore", { job_id: startedId });
    const running = await call(client, "cancel_job", { job_id: startedId });
    expect(running.structuredContent.job.status).toBe("cancelled");
    expect(await ledger(startedId)).toEqual([
      ["charge", -299],
      ["refund", 299],
    ]);
    const endedId = await uploaded(key);
    await call(client, "start_restore", { job_id: endedId });
    const queue = s.t.features.flatMap((f) => f.queues ?? []).find((q) => q.kind === "restore");
    const item = await queue?.claim("w-list-cancel", 60_000);
    expect(item?.jobId).toBe(endedId);
    await queue?.fail(endedId, "w-list-cancel", { kind: "final", message: "Unreadable." });
    const late = refusal(await call(client, "cancel_job", { job_id: endedId }));
    expect(late.code).toBe("wrong_state");
    expect(late.detail).toMatch(/is failed: only a job not yet ended can be cancelled/);
    await client.close();
  });
});
