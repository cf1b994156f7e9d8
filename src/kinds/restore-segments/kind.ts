/**
 * A segmented restore's work units, declared once: a job kind of the one engine that no caller
 * reaches (no operations, no roles: callers follow the restore, which shows its units' sum).
 * Workers claim its units beside every other kind's, in-process and remote (`kinora worker`);
 * its feature adds the queue, the in-process executor, the retention sweeper, and a pass that
 * stops the units of a restore that ended by any way. src/job-kinds.ts lists it.
 */
import type { FeatureFactory } from "../../feature.js";
import { jobEngineDeps } from "../../feature.js";
import { startPeriodic } from "../../services/periodic.js";
import type { FetchLike } from "../../workers/transfer.js";
import { defineJobKind, kindFeature } from "../kind.js";
import { createSegmentExecutor } from "./executor/executor.js";
import { segmentJobs } from "./services/definition.js";
import { stopOrphans } from "./services/units.js";

interface SegmentFeatureOptions {
  /** How in-process workers fetch the segments' files (tests route in-process URLs). */
  fetch?: FetchLike;
  /** Run no executor in this process (e.g. only remote workers). */
  noExecutor?: boolean;
  sweepEveryMs?: number;
}

/** The units' feature: queue, in-process executor, retention sweeper, orphan stopper. */
export function restoreSegmentsFeature(opts: SegmentFeatureOptions = {}): FeatureFactory {
  return (p) => {
    const feature = kindFeature(restoreSegmentsKind, p, {
      operations: [],
      executors: opts.noExecutor ? [] : [createSegmentExecutor({ fetch: opts.fetch })],
      sweepEveryMs: opts.sweepEveryMs,
    });
    const deps = jobEngineDeps(p);
    return {
      ...feature,
      start: async () => {
        const sweeper = await feature.start?.();
        const orphans = startPeriodic(
          opts.sweepEveryMs ?? 30_000,
          async () => {
            const n = await stopOrphans(deps);
            if (n > 0) deps.log.info("stopped the segments of ended restores", { units: n });
          },
          deps.log,
          "stopping the segments of ended restores",
        );
        return {
          async stop() {
            await orphans.stop();
            await sweeper?.stop();
          },
        };
      },
    };
  };
}

/** The restore-segments kind. */
export const restoreSegmentsKind = defineJobKind({
  definition: segmentJobs,
  idPrefix: "rseg",
  plural: "restore segments",
  operations: [],
  instructions: "",
  executor: (_config, seams) => createSegmentExecutor({ fetch: seams?.fetch }),
  feature: () => restoreSegmentsFeature(),
});
