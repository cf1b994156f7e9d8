/**
 * The job engine's suite (engine.suite.ts), run once per kind: restores, clips, and "echo" —
 * a kind defined only in test/jobs/echo-kind.ts with a table the test creates — which then
 * runs end to end through the worker loop with nothing but its definition and executor.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/app.js";
import {
  createEchoJob,
  createEchoTable,
  echoFeature,
  echoJobs,
} from "../../test/jobs/echo-kind.js";
import { silentLogger } from "../logger.js";
import { jobEngineDeps } from "../platform.js";
import { createClip } from "../services/clips/create.js";
import { createRestoreJob } from "../services/restore/create.js";
import { startJobSystem } from "../workers/supervisor.js";
import { clipJobs } from "./clip.js";
import { describeJobEngine } from "./engine.suite.js";
import { findJobRow, moveJob } from "./move.js";
import { restoreJobs } from "./restore.js";

describeJobEngine({
  def: restoreJobs,
  async create(t, walletId) {
    const created = await createRestoreJob(
      t.platform,
      { kind: "wallet", walletId },
      {
        durationSec: 2,
        quality: "faithful",
        filename: "a.mp4",
        contentType: "video/mp4",
        sizeBytes: 10,
      },
    );
    return created.job.id;
  },
  startMove: "start",
  cancelMove: "cancel",
  result: { outputBytes: 10, meta: { measuredDurationSec: 2 } },
});

describeJobEngine({
  def: clipJobs,
  async create(t, walletId) {
    const created = await createClip(
      t.platform,
      { kind: "wallet", walletId },
      {
        prompt: "a lighthouse at dusk",
        size: "480p",
        seconds: 5,
        loop: false,
        contentType: "image/png",
        imageBytes: 10,
      },
    );
    return created.job.id;
  },
  startMove: "start",
  cancelMove: "cancel",
  result: { outputBytes: 10, meta: {} },
});

describeJobEngine({
  def: echoJobs,
  setup: (t) => createEchoTable(t.deps.db),
  create: (t, walletId) =>
    createEchoJob(jobEngineDeps(t.platform), walletId, t.platform.config.workers.maxAttempts),
  startMove: "start",
  cancelMove: "cancel",
  result: { outputBytes: 0, meta: { echo: "HELLO" } },
});

describe("a kind that is only a definition and an executor", () => {
  let t: TestApp;
  beforeAll(async () => {
    // The in-process worker reads its input through the local store's signed URL, in-process.
    t = await createTestApp({
      features: [echoFeature((url, init) => t.fetchUrl(String(url), init))],
    });
    await createEchoTable(t.deps.db);
  });
  afterAll(async () => {
    await t.close();
  });

  it("runs end to end through the worker loop", async () => {
    const { walletId } = await t.newWallet(100);
    const id = await createEchoJob(jobEngineDeps(t.platform), walletId, 3);
    const input = path.join(t.dataDir, "echo.txt");
    await writeFile(input, "hello engine");
    await t.deps.storage.uploadFromFile(`echo/${id}/input`, input, "text/plain");
    await moveJob(t.deps.db, echoJobs, id, "start", t.clock.now(), { queued_at: t.clock.now() });

    const system = await startJobSystem({
      database: t.database,
      queues: t.features.flatMap((f) => f.queues ?? []),
      executors: t.features.flatMap((f) => f.executors ?? []),
      workers: 1,
      leaseMs: 60_000,
      log: silentLogger,
      nodeId: "echo-test",
    });
    system.source.wake();
    let row = await findJobRow(t.deps.db, echoJobs, id);
    try {
      const deadline = Date.now() + 20_000;
      while (row?.status !== "done" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        row = await findJobRow(t.deps.db, echoJobs, id);
      }
    } finally {
      await system.stop(1_000);
    }
    expect(row).toMatchObject({ status: "done", result: "HELLO ENGINE", attempts: 1 });
    // Done: charged once, never refunded; the input stays until retention (echo's rule).
    expect(await t.deps.storage.head(`echo/${id}/input`)).not.toBeNull();
  });
});
