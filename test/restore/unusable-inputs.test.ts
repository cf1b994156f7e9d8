/**
 * Issue 34 item 2, the worker's side: files only the worker can tell are not a usable video —
 * a photo (JPEG, PNG, a one-frame MP4), sound only (M4A, an MP3 with cover art), a video under
 * a second, a picture that turns to garbage after a valid header, a file cut off, footage
 * packed at 300 frames a second — each
 * created, uploaded and started through the real API as a client would, run by an in-process
 * worker with the real ffmpeg engine, and failed with a sentence a customer understands (no
 * ffmpeg words), its error_code, and the whole price back exactly once: one charge and one
 * refund of the same amount in the ledger, nothing else.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDbWorkSource } from "../../src/jobs/work-source.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { silentLogger } from "../../src/logger.js";
import { startWorkerLoop } from "../../src/workers/loop.js";
import { createTestApp, type TestApp } from "../app.js";
import { balanceOf, jobBody, upload } from "./helpers.js";
import { FFMPEG_WORDS, makeUnusableInputs, type UnusableInput } from "./unusable-media.js";

const dir = mkdtempSync(path.join(tmpdir(), "kinora-unusable-"));
let inputs: Record<string, UnusableInput>;
let t: TestApp;
let stop: () => Promise<void>;

beforeAll(async () => {
  [inputs, t] = await Promise.all([
    makeUnusableInputs(dir),
    createTestApp({ features: [restoreFeature({ fetch: (url, init) => t.fetchUrl(url, init) })] }),
  ]);
  const source = await createDbWorkSource(
    t.database,
    t.features.flatMap((f) => f.queues ?? []),
    { leaseMs: 60_000, pollMs: 100 },
  );
  const loop = startWorkerLoop({
    workerId: "unusable-w0",
    source,
    executors: t.features.flatMap((f) => f.executors ?? []),
    log: silentLogger,
    claimWaitMs: 200,
  });
  stop = async () => {
    await loop.stop(5000);
    await source.close();
  };
}, 60_000);

afterAll(async () => {
  await stop?.();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function settled(id: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = (await t.call("GET", `/cloud/jobs/${id}`)).body.job;
    if (["done", "failed", "refunded"].includes(job.status)) return job;
    if (Date.now() > until) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const ledgerOf = (jobId: string) =>
  t.deps.db
    .selectFrom("ledger_entries")
    .select(["kind", "amount_cents"])
    .where("job_id", "=", jobId)
    .orderBy("id")
    .execute();

describe("files that are not a usable video, through the API and a real worker", () => {
  it("fails each with a customer's sentence and its code, and refunds it in full, once", async () => {
    const { key, walletId } = await t.newWallet(10_000);
    const names = Object.keys(inputs);
    // Each declared as a 3-second MP4, as a mislabelled file or a careless client would.
    const ids: string[] = [];
    for (const name of names) {
      const file = inputs[name] as UnusableInput;
      const body = jobBody(file, { duration_sec: 3, filename: name, content_type: "video/mp4" });
      const created = await t.call("POST", "/cloud/jobs", { key, body });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(await upload(t, created.body, file.path)).toBeLessThan(300);
      const started = await t.call("POST", `/cloud/jobs/${created.body.job.id}/start`, { key });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      ids.push(created.body.job.id);
    }
    expect(await balanceOf(t, walletId)).toBeLessThan(10_000);

    const jobs = await Promise.all(ids.map((id) => settled(id)));
    for (const [i, job] of jobs.entries()) {
      const name = names[i] as string;
      const want = inputs[name] as UnusableInput;
      expect({ name, status: job.status, code: job.error_code }).toEqual({
        name,
        status: "failed",
        code: want.code,
      });
      expect(job.error, name).toMatch(want.says);
      expect(job.error, name).not.toMatch(FFMPEG_WORDS);
      expect(job.download_url, name).toBeNull();
      // One charge, one refund of the same amount; no partial refund for a measured length.
      const entries = (await ledgerOf(job.id)).map((e) => [e.kind, Number(e.amount_cents)]);
      expect(entries, name).toEqual([
        ["charge", -job.amount_cents],
        ["refund", job.amount_cents],
      ]);
    }
    expect(await balanceOf(t, walletId)).toBe(10_000);

    // A second report of the same failure changes nothing (the refund is once per job).
    const queue = t.features.flatMap((f) => f.queues ?? [])[0];
    const again = await queue?.fail(ids[0] as string, "unusable-w0", {
      kind: "final",
      message: "again",
    });
    expect(again).toBe("lease_lost");
    expect(await ledgerOf(ids[0] as string)).toHaveLength(2);
    expect(await balanceOf(t, walletId)).toBe(10_000);
  }, 120_000);
});
