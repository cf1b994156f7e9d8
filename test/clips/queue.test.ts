import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobEngineDeps } from "../../src/feature.js";
import { sweepJobs } from "../../src/jobs/retention.js";
import type { JobQueue } from "../../src/jobs/work.js";
import { clipJobs } from "../../src/kinds/clips/services/definition.js";
import { moveClip } from "../../src/kinds/clips/services/moves.js";
import { balances, type ClipTestApp, createClipTestApp } from "./helpers.js";

let t: ClipTestApp;
let queue: JobQueue;
beforeAll(async () => {
  t = await createClipTestApp({ noExecutor: true });
  const q = t.features[0]?.queues?.[0];
  if (!q) throw new Error("no clip queue");
  queue = q;
});
afterAll(async () => {
  await t.close();
});

async function queuedClip(key: string) {
  const res = await t.call("POST", "/motion/jobs", {
    key,
    body: { prompt: "a lighthouse at dusk", content_type: "image/png", image_bytes: 100 },
  });
  const id = res.body.job.id as string;
  const now = t.clock.now();
  await moveClip(t.deps.db, id, "start", now, { queued_at: now });
  return id;
}

async function drain() {
  // Earlier tests may leave queued clips; claim until this test's clip comes up.
  for (;;) {
    const item = await queue.claim("drain", 60_000);
    if (!item) return;
    await queue.fail(item.jobId, "drain", { kind: "final", message: "drained" });
  }
}

async function status(id: string) {
  const row = await t.deps.db
    .selectFrom("clips")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row;
}

describe("clip queue", () => {
  it("retries a retryable failure until max attempts, then fails and refunds once", async () => {
    await drain();
    const { key, walletId } = await t.newWallet(1000);
    const id = await queuedClip(key);
    const max = (await status(id)).max_attempts;
    for (let attempt = 1; attempt <= max; attempt++) {
      const item = await queue.claim("w1", 60_000);
      expect(item?.jobId).toBe(id);
      expect(item?.attempt).toBe(attempt);
      expect(item?.params).toMatchObject({
        prompt: "a lighthouse at dusk",
        size: "480p",
        seconds: 5,
      });
      await queue.fail(id, "w1", { kind: "retry", message: "engine crashed" });
      await queue.fail(id, "w1", { kind: "retry", message: "duplicate report" });
    }
    const row = await status(id);
    expect(row.status).toBe("failed");
    expect(row.error).toBe("engine crashed.");
    expect(await queue.claim("w1", 60_000)).toBeNull();
    expect(await balances(t, key)).toBe(1000);
    const refunds = await t.deps.db
      .selectFrom("ledger_entries")
      .select("id")
      .where("wallet_id", "=", walletId)
      .where("kind", "=", "refund")
      .execute();
    expect(refunds).toHaveLength(1);
  });

  it("ignores reports from a worker that lost its lease, and recovers lapsed leases", async () => {
    await drain();
    const { key } = await t.newWallet(1000);
    const id = await queuedClip(key);
    const item = await queue.claim("w1", 10_000);
    expect(item?.jobId).toBe(id);
    expect(await queue.heartbeat(id, "w1", 10_000, 0.5)).toBe("ok");
    expect((await status(id)).progress).toBe(0.5);
    t.clock.advance(11_000);
    expect(await queue.recoverLapsedLeases()).toBe(1);
    expect((await status(id)).status).toBe("queued");
    expect(await queue.heartbeat(id, "w1", 10_000, 0.6)).toBe("lease_lost");
    const again = await queue.claim("w2", 10_000);
    expect(again?.attempt).toBe(2);
    await queue.fail(id, "w1", { kind: "final", message: "stale worker" });
    expect((await status(id)).status).toBe("processing");
    await queue.fail(id, "w2", {
      kind: "refused",
      code: "sexual",
      message: "The image shows sexual content.",
    });
    const row = await status(id);
    expect(row).toMatchObject({ status: "refused", refusal_code: "sexual", lease_owner: null });
    expect(await balances(t, key)).toBe(1000);
  });

  it("fails and refunds a clip whose lease lapses on its last attempt", async () => {
    await drain();
    const { key } = await t.newWallet(1000);
    const id = await queuedClip(key);
    await t.deps.db.updateTable("clips").set({ max_attempts: 1 }).where("id", "=", id).execute();
    await queue.claim("w1", 1_000);
    t.clock.advance(2_000);
    await queue.recoverLapsedLeases();
    expect((await status(id)).status).toBe("failed");
    expect(await balances(t, key)).toBe(1000);
  });

  it("does not complete a clip whose output never reached storage", async () => {
    await drain();
    const { key } = await t.newWallet(1000);
    const id = await queuedClip(key);
    await queue.claim("w1", 60_000);
    await queue.complete(id, "w1", { outputBytes: 10, meta: {} });
    expect((await status(id)).status).toBe("queued");
  });
});

describe("retention sweep", () => {
  it("expires clips whose upload never came (refunded) and deletes done clips' files", async () => {
    const sweepClips = () => sweepJobs(clipJobs, jobEngineDeps(t.platform));
    const { key } = await t.newWallet(1000);
    const res = await t.call("POST", "/motion/jobs", {
      key,
      body: { prompt: "snow falling", content_type: "image/png", image_bytes: 100 },
    });
    const waiting = res.body.job.id as string;
    await drain();
    const done = await queuedClip(key);
    const outputKey = `clips/${done}/output`;
    await t.deps.db
      .updateTable("clips")
      .set({
        status: "done",
        output_key: outputKey,
        expires_at: new Date(t.clock.now().getTime() + 48 * 3600_000),
      })
      .where("id", "=", done)
      .execute();
    expect(await balances(t, key)).toBe(1000 - 2 * 59);
    t.clock.advance(2 * 3600_000);
    await sweepClips();
    expect((await status(waiting)).status).toBe("expired");
    expect((await status(done)).status).toBe("done");
    expect(await balances(t, key)).toBe(1000 - 59);
    t.clock.advance(48 * 3600_000);
    await sweepClips();
    const row = await status(done);
    expect(row.status).toBe("expired");
    expect(row.error).toMatch(/deleted/);
    expect(row.files_deleted_at).not.toBeNull();
    const view = await t.call("GET", `/motion/jobs/${done}`, { key });
    expect(view.body.job.video_url).toBeUndefined();
  });
});

describe("the clips feature's sweeper", () => {
  it("runs the retention sweep in the background on the injected clock", async () => {
    const swept = await createClipTestApp({ noExecutor: true, sweepEveryMs: 20 });
    try {
      const { key } = await swept.newWallet(1000);
      const res = await swept.call("POST", "/motion/jobs", {
        key,
        body: { prompt: "a quiet street", content_type: "image/png", image_bytes: 100 },
      });
      const task = await swept.features[0]?.start?.();
      swept.clock.advance(61 * 60_000);
      const deadline = Date.now() + 5_000;
      let clip = res.body.job;
      while (clip.status !== "expired" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        clip = (await swept.call("GET", `/motion/jobs/${clip.id}`, { key })).body.job;
      }
      await task?.stop();
      expect(clip.status).toBe("expired");
      expect(clip.error).toMatch(/not uploaded/);
      expect(await balances(swept, key)).toBe(1000);
    } finally {
      await swept.close();
    }
  });
});
