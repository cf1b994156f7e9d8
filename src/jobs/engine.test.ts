/**
 * The job engine's suite (test/jobs/engine.suite.ts), run once per kind: restores, clips, and "echo" —
 * a kind that lives only in its test folder (test/kinds/echo/) with a table the test creates —
 * which then runs end to end through the worker loop with nothing but its definition and executor.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TestApp } from "../../test/app.js";
import { describeJobEngine, type KindFixture, useEngineApp } from "../../test/jobs/engine.suite.js";
import { echoFeature } from "../../test/kinds/echo/kind.js";
import { echoInputKey, echoJobs } from "../../test/kinds/echo/services/definition.js";
import { createEcho } from "../../test/kinds/echo/services/jobs.js";
import { createEchoTable, type EchoRow } from "../../test/kinds/echo/services/table.js";
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
  create: async (t, walletId) =>
    (await createEcho(t.platform, { kind: "wallet", walletId }, { text_bytes: 12, shout: true }))
      .job.id,
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
    const created = await createEcho(
      t.platform,
      { kind: "wallet", walletId },
      { text_bytes: 12, shout: true },
    );
    const id = created.job.id;
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
      row = await waitForDone(t, id);
    } finally {
      await system.stop(1_000);
    }
    expect(row).toMatchObject({ status: "done", result: "HELLO ENGINE", attempts: 1 });
    expect(await refundJobCount(t, id)).toBe(0);
    // Echo keeps its input until retention (its filesAfterEnd is empty).
    expect(await t.deps.storage.head(echoInputKey(id))).not.toBeNull();
  });
});

/** The echo once done, or as it stands after 20 s of real time (the worker runs on its own). */
async function waitForDone(t: TestApp, id: string): Promise<EchoRow | undefined> {
  const read = () =>
    t.deps.db.selectFrom("echo_jobs").selectAll().where("id", "=", id).executeTakeFirst();
  const deadline = Date.now() + 20_000;
  let row = await read();
  while (row?.status !== "done" && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    row = await read();
  }
  return row;
}

async function refundJobCount(t: TestApp, id: string) {
  const rows = await t.deps.db
    .selectFrom("ledger_entries")
    .select("id")
    .where("job_id", "=", id)
    .where("kind", "=", "refund")
    .execute();
  return rows.length;
}
