/**
 * The job engine's suite (test/jobs/engine.suite.ts), run once per kind: restores, clips, and "echo" —
 * a kind defined only in test/jobs/echo-kind.ts with a table the test creates — which then
 * runs end to end through the worker loop with nothing but its definition and executor.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TestApp } from "../../test/app.js";
import {
  createEchoJob,
  createEchoTable,
  type EchoRow,
  echoFeature,
  echoInputKey,
  echoJobs,
  waitForEchoDone,
} from "../../test/jobs/echo-kind.js";
import { describeJobEngine, type KindFixture, useEngineApp } from "../../test/jobs/engine.suite.js";
import { jobEngineDeps } from "../feature.js";
import { createClip } from "../kinds/clips/services/create.js";
import { type ClipRow, clipJobs } from "../kinds/clips/services/definition.js";
import { createRestoreJob } from "../kinds/restore/services/create.js";
import { type RestoreJobRow, restoreJobs } from "../kinds/restore/services/definition.js";
import { silentLogger } from "../logger.js";
import { startJobSystem } from "../workers/supervisor.js";
import { moveJob } from "./move.js";

const restore: KindFixture<RestoreJobRow> = {
  def: restoreJobs,
  async create(t, walletId) {
    const input = {
      durationSec: 2,
      quality: "faithful",
      filename: "a.mp4",
      contentType: "video/mp4",
      sizeBytes: 10,
    } as const;
    return (await createRestoreJob(t.platform, { kind: "wallet", walletId }, input)).job.id;
  },
  startMove: "start",
  cancelMove: "cancel",
  result: { outputBytes: 10, meta: { measuredDurationSec: 2 } },
};

const clip: KindFixture<ClipRow> = {
  def: clipJobs,
  async create(t, walletId) {
    const input = {
      prompt: "a lighthouse at dusk",
      size: "480p",
      seconds: 5,
      loop: false,
      contentType: "image/png",
      imageBytes: 10,
    } as const;
    return (await createClip(t.platform, { kind: "wallet", walletId }, input)).job.id;
  },
  startMove: "start",
  cancelMove: "cancel",
  // Clips complete only when the output is in storage; the suite stores every file up front.
  result: { outputBytes: 10, meta: {} },
};

const echo: KindFixture<EchoRow> = {
  def: echoJobs,
  setup: (t) => createEchoTable(t.deps.db),
  create: (t, walletId) =>
    createEchoJob(jobEngineDeps(t.platform), walletId, t.platform.config.workers.maxAttempts),
  startMove: "start",
  cancelMove: "cancel",
  result: { outputBytes: 0, meta: { echo: "HELLO" } },
};

const app = useEngineApp();
describeJobEngine(restore, app);
describeJobEngine(clip, app);
describeJobEngine(echo, app);

describe("a kind that is only a definition and an executor", () => {
  it("runs end to end through the worker loop", async () => {
    const { t } = app;
    await createEchoTable(t.deps.db);
    // The kind's feature (what its registry entry mounts); its worker fetches in-process URLs.
    const feature = await echoFeature({ fetch: (url, init) => t.fetchUrl(url, init) })(t.platform);
    const { walletId } = await t.newWallet(100);
    const id = await createEchoJob(jobEngineDeps(t.platform), walletId, 3);
    const input = path.join(t.dataDir, "echo.txt");
    await writeFile(input, "hello engine");
    await t.deps.storage.uploadFromFile(echoInputKey(id), input, "text/plain");
    await moveJob(t.deps.db, echoJobs, id, "start", t.clock.now(), { queued_at: t.clock.now() });

    const system = await startJobSystem({
      database: t.database,
      queues: feature.queues ?? [],
      executors: feature.executors ?? [],
      workers: 1,
      leaseMs: 60_000,
      log: silentLogger,
      nodeId: "echo-test",
    });
    let row: EchoRow | undefined;
    try {
      row = await waitForEchoDone(t.deps.db, id);
    } finally {
      await system.stop(1_000);
    }
    expect(row).toMatchObject({ status: "done", result: "HELLO ENGINE", attempts: 1 });
    expect(await refundJobCount(t, id)).toBe(0);
    // Echo keeps its input until retention (its filesAfterEnd is empty).
    expect(await t.deps.storage.head(echoInputKey(id))).not.toBeNull();
  });
});

async function refundJobCount(t: TestApp, id: string) {
  const rows = await t.deps.db
    .selectFrom("ledger_entries")
    .select("id")
    .where("job_id", "=", id)
    .where("kind", "=", "refund")
    .execute();
  return rows.length;
}
