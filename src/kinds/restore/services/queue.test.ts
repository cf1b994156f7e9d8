import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../../../test/app.js";
import { balanceOf, jobBody, makeVideo, upload } from "../../../../test/restore/helpers.js";
import { jobEngineDeps } from "../../../feature.js";
import { sweepJobs } from "../../../jobs/retention.js";
import type { JobQueue } from "../../../jobs/work.js";
import { restoreFeature } from "../kind.js";
import { getJobForCheckout, markCheckoutPaid } from "./checkout-hooks.js";
import { restoreJobs } from "./definition.js";

let t: TestApp;
let queue: JobQueue;
let video: { path: string; sizeBytes: number };
const LEASE = 60_000;

beforeAll(async () => {
  t = await createTestApp({
    features: [restoreFeature({ noExecutor: true })],
    env: { JOB_MAX_ATTEMPTS: "2" },
  });
  queue = t.features.flatMap((f) => f.queues ?? []).find((q) => q.kind === "restore") as JobQueue;
  video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-rq-")), 1);
});
afterAll(async () => {
  await t.close();
});

/** A paid, uploaded, started job; drains older claimable jobs so the next claim gets this one. */
async function startedJob(balance = 1000) {
  const wallet = await t.newWallet(balance);
  const created = (await t.call("POST", "/cloud/jobs", { key: wallet.key, body: jobBody(video) }))
    .body;
  await upload(t, created, video.path);
  const res = await t.call("POST", `/cloud/jobs/${created.job.id}/start`, { key: wallet.key });
  expect(res.body.job.status).toBe("processing");
  return { ...wallet, id: created.job.id as string };
}

const job = async (id: string) => (await t.call("GET", `/cloud/jobs/${id}`)).body.job;
const refunds = async (id: string) =>
  (
    await t.deps.db
      .selectFrom("ledger_entries")
      .select("id")
      .where("job_id", "=", id)
      .where("kind", "=", "refund")
      .execute()
  ).length;

describe("restore queue", () => {
  it("claims with a lease, heartbeats progress, and only the lease holder reports", async () => {
    const { id } = await startedJob();
    const item = await queue.claim("w1", LEASE);
    expect(item?.jobId).toBe(id);
    expect(item?.params).toMatchObject({ quality: "faithful", declaredDurationSec: 2 });
    expect(await queue.claim("w2", LEASE)).toBeNull();
    expect(await queue.heartbeat(id, "w1", LEASE, 0.5)).toBe("ok");
    expect(await queue.heartbeat(id, "w2", LEASE, 0.9)).toBe("lease_lost");
    expect((await job(id)).progress).toBe(0.5);
    await queue.complete(id, "w2", { outputBytes: 1, meta: {} });
    expect((await job(id)).status).toBe("processing");
    await queue.fail(id, "w1", {
      kind: "final",
      message: "The uploaded file is not a readable video.",
    });
    expect(await job(id)).toMatchObject({ status: "failed", error: /not a readable/ });
    expect(await refunds(id)).toBe(1);
  });

  it("refunds a lying duration with status refunded and an explanation", async () => {
    const { id, walletId } = await startedJob(500);
    expect(await balanceOf(t, walletId)).toBe(201);
    await queue.claim("w1", LEASE);
    await queue.fail(id, "w1", {
      kind: "too_long",
      message:
        "The video is 12 min long but 0.1 min was declared; it was refunded — create a new job with the real duration.",
    });
    expect((await job(id)).status).toBe("refunded");
    expect(await balanceOf(t, walletId)).toBe(500);
  });

  it("retries a crashed worker's job after its lease lapses, then fails and refunds once", async () => {
    const { id, walletId } = await startedJob(400);
    const first = await queue.claim("dies-1", LEASE);
    expect(first?.attempt).toBe(1);
    expect(await queue.recoverLapsedLeases()).toBe(0);
    t.clock.advance(LEASE + 1);
    expect(await queue.recoverLapsedLeases()).toBe(1);
    expect((await job(id)).status).toBe("processing");
    const second = await queue.claim("dies-2", LEASE);
    expect(second?.jobId).toBe(id);
    expect(second?.attempt).toBe(2);
    // The first worker comes back late: its reports no longer count.
    expect(await queue.heartbeat(id, "dies-1", LEASE, 0.3)).toBe("lease_lost");
    t.clock.advance(LEASE + 1);
    const recovered = await Promise.all([queue.recoverLapsedLeases(), queue.recoverLapsedLeases()]);
    expect(recovered.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await job(id)).toMatchObject({ status: "failed", error: /stopped responding/ });
    expect(await refunds(id)).toBe(1);
    expect(await balanceOf(t, walletId)).toBe(400);
    expect(await queue.claim("w3", LEASE)).toBeNull();
  });

  it("requeues a retryable failure until the last attempt", async () => {
    const { id } = await startedJob();
    await queue.claim("w1", LEASE);
    await queue.fail(id, "w1", { kind: "retry", message: "The engine crashed." });
    expect((await job(id)).status).toBe("processing");
    await queue.claim("w2", LEASE);
    await queue.fail(id, "w2", { kind: "retry", message: "The engine crashed." });
    expect(await job(id)).toMatchObject({ status: "failed", error: /failed 2 times/ });
    expect(await refunds(id)).toBe(1);
  });

  it("never finishes a job whose result is not in storage: retries, then fails and refunds", async () => {
    const { id, walletId } = await startedJob(700);
    await queue.claim("w1", LEASE);
    // The worker says it is done, but nothing was stored under the job's output key.
    expect(await queue.complete(id, "w1", { outputBytes: 1234, meta: {} })).toBe("ok");
    expect(await job(id)).toMatchObject({ status: "processing", download_url: null });
    await queue.claim("w2", LEASE);
    await queue.complete(id, "w2", { outputBytes: 1234, meta: {} });
    const failed = await job(id);
    expect(failed).toMatchObject({ status: "failed", download_url: null });
    expect(failed.error).toMatch(/did not reach storage\. It failed 2 times/);
    expect(await refunds(id)).toBe(1);
    expect(await balanceOf(t, walletId)).toBe(700);
  });
});

describe("checkout hooks", () => {
  it("reads the job for checkout, marks it paid once, and queues a card refund when it fails", async () => {
    const created = (
      await t.call("POST", "/cloud/jobs", { body: jobBody(video, { email: "c@example.com" }) })
    ).body;
    const id = created.job.id as string;
    const before = await getJobForCheckout(t.deps, id);
    expect(before).toMatchObject({ status: "pending_payment", amountCents: 299, uploaded: false });
    expect(before.uploadProblem?.detail).toMatch(/not been uploaded/);
    expect(before.uploadProblem?.code).toBe("not_uploaded");
    await upload(t, created, video.path);
    expect((await getJobForCheckout(t.deps, id)).uploaded).toBe(true);
    const paid = await markCheckoutPaid(t.deps, id, { paymentRef: "cs_test_1" });
    expect(paid.status).toBe("processing");
    const again = await markCheckoutPaid(t.deps, id, { paymentRef: "cs_test_1" });
    expect(again.status).toBe("processing");
    await queue.claim("w1", LEASE);
    await queue.fail(id, "w1", { kind: "final", message: "Corrupt." });
    const outbox = await t.deps.db.selectFrom("restore_card_refunds").selectAll().execute();
    expect(outbox.filter((r) => r.job_id === id)).toHaveLength(1);
    expect(Number(outbox.find((r) => r.job_id === id)?.amount_cents)).toBe(299);
    await expect(getJobForCheckout(t.deps, "rj_missing")).rejects.toMatchObject({ status: 404 });
  });
});

describe("retention sweeper", () => {
  it("expires unpaid and never-uploaded jobs (refunding the paid ones) and deletes done files", async () => {
    const wallet = await t.newWallet(1000);
    const waiting = (await t.call("POST", "/cloud/jobs", { key: wallet.key, body: jobBody(video) }))
      .body.job.id;
    const unpaid = (
      await t.call("POST", "/cloud/jobs", { body: jobBody(video, { email: "u@example.com" }) })
    ).body.job.id;
    const { id: doneId } = await startedJob();
    await queue.claim("w1", LEASE);
    const outFile = path.join(t.dataDir, "out.mp4");
    await import("node:fs/promises").then((fs) => fs.copyFile(video.path, outFile));
    await t.deps.storage.uploadFromFile(`restore/${doneId}/output`, outFile, "video/mp4");
    await queue.complete(doneId, "w1", { outputBytes: 1, meta: { measuredDurationSec: 1 } });
    expect((await job(doneId)).download_url).toBeTruthy();

    // Rules in order: done past retention, never-uploaded, never-paid, ended jobs' files.
    const sweep = () => sweepJobs(restoreJobs, jobEngineDeps(t.platform));
    expect((await sweep()).slice(0, 2)).toEqual([0, 0]);
    t.clock.advance(49 * 3600_000);
    const counts = await sweep();
    t.clock.advance(-49 * 3600_000);
    expect(counts[0]).toBeGreaterThanOrEqual(1);
    expect(await job(waiting)).toMatchObject({ status: "expired", error: /never arrived/ });
    expect(await balanceOf(t, wallet.walletId)).toBe(1000);
    expect((await job(unpaid)).status).toBe("expired");
    const done = await job(doneId);
    expect(done).toMatchObject({ status: "expired", download_url: null });
    expect(done.error).toMatch(/deleted after 48 hours/);
    expect(await t.deps.storage.head(`restore/${doneId}/output`)).toBeNull();
  });
});
