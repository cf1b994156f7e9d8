/**
 * Cancelling a restore while it is processing (issue 37: "cancel stops every segment; the job is
 * charged once and refunded once"), raced for real on a served app: the owner's cancels over
 * HTTP against a worker's reports over the worker API — the finish, a final failure, a
 * segment's final failure after the hand-off — and against each other. Whatever wins, the
 * ledger shows the charge once and at most one refund, and the refund is there exactly when the
 * job ended cancelled or failed. No ffmpeg: the worker's side is its reports (what a real
 * worker sends), the cancel's effect on a real worker's ffmpeg is in segments-cancel.test.ts.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Executor, WorkItem } from "../../src/jobs/work.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { RestoreWorkParams } from "../../src/kinds/restore/services/definition.js";
import { moveRestore } from "../../src/kinds/restore/services/store.js";
import { restoreSegmentsFeature } from "../../src/kinds/restore-segments/kind.js";
import { silentLogger } from "../../src/logger.js";
import { createHttpWorkSource } from "../../src/workers/http-source.js";
import { startWorkerLoop } from "../../src/workers/loop.js";
import { uploadOutput } from "../../src/workers/transfer.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { balanceOf, upload } from "./helpers.js";
import { ffmpegsNaming } from "./processes.js";

const TOKEN = "cancel-races-worker-token-0123";
const dir = mkdtempSync(path.join(tmpdir(), "kinora-cancel-races-"));
const file = path.join(dir, "tape.mp4");
const result = path.join(dir, "result.mp4");
let s: ServedApp;
let worker: ReturnType<typeof createHttpWorkSource>;

beforeAll(async () => {
  writeFileSync(file, Buffer.alloc(64, 1));
  writeFileSync(result, Buffer.alloc(32, 2));
  s = await serveTestApp({
    features: [restoreFeature({ noExecutor: true }), restoreSegmentsFeature({ noExecutor: true })],
    // A short lease: a worker heartbeats every quarter of it (1.25 s).
    env: { WORKER_TOKEN: TOKEN, LOG_LEVEL: "silent", JOB_LEASE_MS: "5000" },
  });
  worker = createHttpWorkSource({ server: s.url, token: TOKEN });
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A real HTTP request to the served app. */
async function rest(method: string, url: string, key?: string, body?: unknown) {
  const res = await fetch(`${s.url}${url}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

const BODY = {
  duration_sec: 30,
  quality: "faithful",
  filename: "tape.mp4",
  content_type: "video/mp4",
  size: 64,
};

/** A balance-paid restore, uploaded and started: processing, waiting for a worker. */
async function startedJob(key: string) {
  const created = (await s.t.call("POST", "/cloud/jobs", { key, body: BODY })).body;
  expect(await upload(s.t, created, file)).toBeLessThan(300);
  const started = await s.t.call("POST", `/cloud/jobs/${created.job.id}/start`, { key });
  expect(started.body.job.status).toBe("processing");
  return created.job.id as string;
}

/**
 * Claims, as the worker `workerId`, until it holds each of `ids` (the queue holds only this
 * test's jobs; others claimed on the way stay running on it).
 */
async function claimAll(ids: string[], workerId: string, kind = "restore") {
  const items = new Map<string, WorkItem>();
  while (ids.some((id) => !items.has(id))) {
    const item = await worker.claim([kind], workerId, 0);
    if (!item) throw new Error(`only ${items.size} claimed, ${ids.length} wanted`);
    items.set(item.jobId, item);
  }
  return ids.map((id) => items.get(id) as WorkItem);
}

async function ledgerOf(jobId: string) {
  const rows = await s.t.deps.db
    .selectFrom("ledger_entries")
    .select(["kind"])
    .where("job_id", "=", jobId)
    .execute();
  return rows.map((r) => r.kind).sort();
}

const statusOf = async (id: string) =>
  (
    await s.t.deps.db
      .selectFrom("restore_jobs")
      .select("status")
      .where("id", "=", id)
      .executeTakeFirstOrThrow()
  ).status;

/** Every job ended in one of `ends`; refunded once exactly when it ended in `refunding`. */
async function expectOnce(ids: string[], ends: string[], refunding: string[]) {
  const seen: string[] = [];
  for (const id of ids) {
    const status = await statusOf(id);
    expect(ends).toContain(status);
    seen.push(status);
    const want = refunding.includes(status) ? ["charge", "refund"] : ["charge"];
    expect(await ledgerOf(id), `${id} ${status}`).toEqual(want);
  }
  return seen;
}

const cancel = (id: string, key: string) => rest("POST", `/cloud/jobs/${id}/cancel`, key);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * The worker's report and the owner's cancel, the second of them `offsetMs` after the first
 * (the cancel later when positive, the report later when negative): spread from job to job so
 * that either may win.
 */
const race = <R>(report: () => Promise<R>, id: string, key: string, offsetMs: number) => [
  sleep(Math.max(0, -offsetMs)).then(report),
  sleep(Math.max(0, offsetMs)).then(() => cancel(id, key)),
];
/** Offsets from −lead·step up by `step` (a report takes longer than a cancel: lead < n/2). */
const spread = (i: number, lead: number, step: number) => (i - lead) * step;

describe("cancel while processing, raced over HTTP", () => {
  it("two or more cancels at once: all answer cancelled, one refund", async () => {
    const { key, walletId } = await s.t.newWallet(8 * 299);
    const ids = await Promise.all(Array.from({ length: 8 }, () => startedJob(key)));
    const items = await claimAll(ids, "w-double");
    const answers = await Promise.all(ids.flatMap((id) => [cancel(id, key), cancel(id, key)]));
    for (const a of answers) {
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect(a.body.job.status).toBe("cancelled");
    }
    await expectOnce(ids, ["cancelled"], ["cancelled"]);
    expect(await balanceOf(s.t, walletId)).toBe(8 * 299);
    // The worker holding a cancelled job is told at its next heartbeat.
    for (const item of items) expect(await worker.heartbeat(item, "w-double", 0.5)).toBe(false);
  });

  it("cancel racing the worker's finish: done and charged, or cancelled and refunded", async () => {
    const { key, walletId } = await s.t.newWallet(10 * 299);
    const ids = await Promise.all(Array.from({ length: 10 }, () => startedJob(key)));
    const items = await claimAll(ids, "w-finish");
    const ctl = new AbortController();
    // The result is stored first, as a real worker does before it reports.
    for (const item of items) {
      await uploadOutput(fetch, item, result, "video/mp4", ctl.signal);
    }
    const answers = await Promise.all(
      items.flatMap((item, i) => {
        const finish = () => worker.complete(item, "w-finish", { outputBytes: 32, meta: {} });
        return race(finish, ids[i] as string, key, spread(i, 3, 20));
      }),
    );
    const ends = await expectOnce(ids, ["done", "cancelled"], ["cancelled"]);
    const cancelled = ends.filter((e) => e === "cancelled").length;
    expect(await balanceOf(s.t, walletId)).toBe(cancelled * 299);
    // A cancel that lost is the clear 409 it is for any ended job.
    for (const a of answers) {
      if (!a || !("status" in a)) continue;
      if (a.status === 409) expect(a.body.detail).toMatch(/is done: only a job not yet ended/);
      else expect(a.status).toBe(200);
    }
    // A cancelled job's files are gone, the result the worker stored included.
    for (const [i, id] of ids.entries()) {
      if (ends[i] !== "cancelled") continue;
      expect(await s.t.deps.storage.head(`restore/${id}/output`)).toBeNull();
      expect(await s.t.deps.storage.head(`restore/${id}/input`)).toBeNull();
    }
    console.info(`finish vs cancel: ${cancelled} of ${ids.length} cancelled`);
  });

  it("cancel racing a failure's refund: one refund, failed or cancelled", async () => {
    const { key, walletId } = await s.t.newWallet(10 * 299);
    const ids = await Promise.all(Array.from({ length: 10 }, () => startedJob(key)));
    const items = await claimAll(ids, "w-fail");
    const failure = { kind: "final" as const, message: "The file could not be read." };
    await Promise.all(
      items.flatMap((item, i) => {
        const fail = () => worker.fail(item, "w-fail", failure);
        return race(fail, ids[i] as string, key, spread(i, 5, 6));
      }),
    );
    const ends = await expectOnce(ids, ["failed", "cancelled"], ["failed", "cancelled"]);
    expect(await balanceOf(s.t, walletId)).toBe(10 * 299);
    console.info(`failure vs cancel: ${ends.filter((e) => e === "cancelled").length} of 10`);
  });

  it("cancel racing a segment's failure after the hand-off: one refund, every unit stopped", async () => {
    const { key, walletId } = await s.t.newWallet(6 * 299);
    const ids = await Promise.all(Array.from({ length: 6 }, () => startedJob(key)));
    const items = await claimAll(ids, "w-analyse");
    // Each analysis hands its job to two segments (a plan without sound).
    const segment = (index: number) => ({
      index,
      startSec: index * 15,
      endSec: (index + 1) * 15,
      frames: 375,
      onKeyframe: true,
      last: index === 1,
    });
    const cut = { frameSec: 0.04, startSec: 0, endSec: 30, segments: [segment(0), segment(1)] };
    for (const item of items) {
      await worker.complete(item, "w-analyse", {
        outputBytes: 0,
        meta: { segmented: { plan: { audio: null }, cut } },
      });
    }
    const unitsOf = (id: string) =>
      s.t.deps.db.selectFrom("restore_segments").selectAll().where("parent_id", "=", id).execute();
    for (const id of ids) expect(await unitsOf(id)).toHaveLength(2);
    // One segment of each job running on a worker, which fails it for good as the owner cancels.
    const units = await Promise.all(ids.map(async (id) => (await unitsOf(id))[0]?.id as string));
    const running = await claimAll(units, "w-seg", "restoreseg");
    const failure = { kind: "final" as const, message: "The segment could not be decoded." };
    await Promise.all(
      running.flatMap((item, i) => {
        const fail = () => worker.fail(item, "w-seg", failure);
        return race(fail, ids[i] as string, key, spread(i, 0, 70));
      }),
    );
    const ends = await expectOnce(ids, ["failed", "cancelled"], ["failed", "cancelled"]);
    expect(await balanceOf(s.t, walletId)).toBe(6 * 299);
    for (const id of ids) {
      const left = (await unitsOf(id)).filter((u) => ["queued", "running"].includes(u.status));
      expect(left).toEqual([]);
    }
    console.info(`segment failure vs cancel: ${ends.filter((e) => e === "cancelled").length} of 6`);
  });
});

describe("the worker of a cancelled restore", () => {
  it("learns at its next heartbeat that the lease is gone and kills its ffmpeg", async () => {
    const { key } = await s.t.newWallet(299);
    const id = await startedJob(key);
    // A worker over the worker API whose restore is an ffmpeg that runs until it is stopped
    // (its command line names the job); the loop hands it the attempt's signal.
    let aborted: unknown;
    const endless: Executor<RestoreWorkParams> = {
      kind: "restore",
      params: RestoreWorkParams,
      execute: (item, ctx) =>
        new Promise((_resolve, reject) => {
          const args = ["-v", "error", "-re", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=25"];
          const ff = spawn(
            "ffmpeg",
            [...args, "-metadata", `comment=${item.jobId}`, "-f", "null", "-"],
            {
              signal: ctx.signal,
              stdio: "ignore",
            },
          );
          ff.on("error", (err) => {
            aborted = ctx.signal.reason ?? err;
            reject(err);
          });
        }),
    };
    let refusedBeats = 0;
    const loop = startWorkerLoop({
      workerId: "w-heartbeat",
      source: {
        ...worker,
        heartbeat: async (...a) => {
          const held = await worker.heartbeat(...a);
          if (!held) refusedBeats++;
          return held;
        },
      },
      executors: [endless as unknown as Executor],
      log: silentLogger,
      claimWaitMs: 200,
    });
    try {
      for (let i = 0; i < 200 && ffmpegsNaming([id]).length === 0; i++) await sleep(50);
      expect(ffmpegsNaming([id])).toHaveLength(1);
      const at = Date.now();
      const res = await cancel(id, key);
      expect(res.body.job.status).toBe("cancelled");
      const answeredMs = Date.now() - at;
      while (ffmpegsNaming([id]).length > 0 && Date.now() - at < 10_000) await sleep(50);
      const ms = Date.now() - at;
      expect(ffmpegsNaming([id])).toEqual([]);
      // Within two heartbeats (1.25 s apart) of the cancel, by the loop's abort after a refused
      // heartbeat — not by itself.
      expect(ms).toBeLessThan(2 * 1250 + 1000);
      expect(aborted).toBeDefined();
      expect(refusedBeats).toBeGreaterThanOrEqual(1);
      console.info(
        `heartbeat: the cancel answered in ${answeredMs} ms, the worker's ffmpeg ended ${ms} ms after it was sent`,
      );
    } finally {
      await loop.stop(1000);
    }
    expect(await ledgerOf(id)).toEqual(["charge", "refund"]);
    expect(await statusOf(id)).toBe("cancelled");
  });
});

describe("cancel of a checkout-paid restore while processing", () => {
  it("refunds the card once, as a failed one is, and leaves the balance alone", async () => {
    const { key, walletId } = await s.t.newWallet(0);
    const created = (
      await s.t.call("POST", "/cloud/jobs", {
        key,
        body: { ...BODY, pay_with: "checkout", email: "owner@example.com" },
      })
    ).body;
    const id = created.job.id as string;
    expect(created.job.status).toBe("pending_payment");
    const unpaid = await cancel(id, key);
    expect(unpaid.status).toBe(409);
    expect(unpaid.body.detail).toMatch(/unpaid checkout job simply expires/);
    expect(await upload(s.t, created, file)).toBeLessThan(300);
    // Paid at the card provider (what the checkout's paid event does).
    const now = s.t.clock.now();
    await moveRestore(s.t.deps.db, id, "pay", now, {
      payment_ref: "cs_test_cancel",
      queued_at: now,
    });
    const answers = await Promise.all([cancel(id, key), cancel(id, key)]);
    for (const a of answers) expect(a.body.job.status).toBe("cancelled");
    const refunds = await s.t.deps.db
      .selectFrom("restore_card_refunds")
      .select(["kind", "amount_cents"])
      .where("job_id", "=", id)
      .execute();
    expect(refunds).toEqual([{ kind: "refund", amount_cents: created.job.amount_cents }]);
    expect(await ledgerOf(id)).toEqual([]);
    expect(await balanceOf(s.t, walletId)).toBe(0);
    // Another wallet's key cannot cancel it (not found, nothing changed).
    const other = await s.t.newWallet(0);
    expect((await cancel(id, other.key)).status).toBe(404);
  });
});
