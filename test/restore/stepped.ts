/**
 * A restore that takes a set time and reports progress in steps, run by a worker loop with short
 * heartbeats — for tests that follow a job (waits, MCP tasks, the SDK) without real ffmpeg.
 */
import { writeFile } from "node:fs/promises";
import type { RestoreEngine } from "../../src/engines/contracts.js";
import type { FeatureFactory } from "../../src/feature.js";
import { createDbWorkSource } from "../../src/jobs/work-source.js";
import { createRestoreExecutor } from "../../src/kinds/restore/executor/executor.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { silentLogger } from "../../src/logger.js";
import { startWorkerLoop } from "../../src/workers/loop.js";
import type { TestApp } from "../app.js";

/** Restores nothing: `steps` progress reports `stepMs` apart, then a small "result". */
export function steppedRestoreEngine(steps: number, stepMs: number): RestoreEngine {
  return {
    name: "stepped-test",
    measureDurationSec: async () => 2,
    async restore(job) {
      for (let i = 1; i <= steps; i++) {
        await new Promise((r) => setTimeout(r, stepMs));
        job.onProgress?.(i / steps);
      }
      await writeFile(job.outputPath, new Uint8Array(2048).fill(1));
      return { durationSec: 2, width: 320, height: 240, plan: {}, elapsedMs: steps * stepMs };
    },
  };
}

/** The restore feature with that engine as its executor. */
export function steppedRestoreFeature(steps: number, stepMs: number): FeatureFactory {
  return async (p) => ({
    ...(await restoreFeature()(p)),
    executors: [createRestoreExecutor({ engine: steppedRestoreEngine(steps, stepMs) })],
  });
}

/**
 * A worker loop over the app's queues whose heartbeats (which carry progress to readers) come
 * every 100 ms instead of every 5 s. Returns its stop.
 */
export async function startQuickWorker(t: TestApp, workerId: string): Promise<() => Promise<void>> {
  const source = await createDbWorkSource(
    t.database,
    t.features.flatMap((f) => f.queues ?? []),
    { leaseMs: 60_000, pollMs: 100 },
  );
  const loop = startWorkerLoop({
    workerId,
    source,
    executors: t.features.flatMap((f) => f.executors ?? []),
    log: silentLogger,
    claimWaitMs: 200,
    heartbeatMs: 100,
  });
  return async () => {
    await loop.stop(5000);
    await source.close();
  };
}
