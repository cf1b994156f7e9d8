/**
 * A segmented restore's work units as a job kind of the one engine: `queued` waits for any
 * worker (in-process or remote), `running` holds a lease that heartbeats extend; a failed or
 * lapsed attempt is retried while attempts remain. A unit carries no charge (amount 0, no
 * refund): its restore is charged once, and refunded once when a unit fails for good
 * (units.ts). Its file (a segment's picture, the sound) lives at `restoreseg/<id>/output`
 * until the restore is done or ended; the join stores the restore's own result.
 */
import { sql } from "kysely";
import type { JobDefinition, JobEngineDeps } from "../../../jobs/definition.js";
import { OUTPUT_TOKEN_HEADER, signOutputToken } from "../../../jobs/output-token.js";
import type { JobFileLayout } from "../../../storage/keys.js";
import { SEGMENT_FINAL, SEGMENT_MOVES, SEGMENT_STATUSES } from "../rules/transitions.js";
import { readSpec, SegmentWorkParams } from "./spec.js";
import {
  SEGMENT_KIND,
  segmentCounts,
  spawnUnits,
  stopUnits,
  sumProgress,
  type UnitRow,
  unitDone,
  unitEnded,
  unitOutputKey,
} from "./units.js";

/** `restoreseg/rseg_…/output`: a unit's file. */
const UNIT_FILES: JobFileLayout = {
  area: "restoreseg",
  idPattern: /^rseg_[A-Za-z0-9_-]{1,100}$/,
  files: ["output"],
};

/** The most a segment's picture or the sound may weigh (a restore's whole result may 4 GiB). */
const UNIT_MAX_BYTES = 4 * 1024 ** 3;

/** The most the still and each full-size frame may weigh (as a one-piece restore's). */
const STILL_MAX_BYTES = 2 * 1024 * 1024;
const FRAME_MAX_BYTES = 16 * 1024 * 1024;

/** Run seconds per second of source by quality until measured (one CPU thread, SD). */
const DEFAULT_RATES = { faithful: 0.6, enhanced: 2, enhanced_max: 6 };

function ticket(deps: JobEngineDeps, key: string, jobId: string, maxBytes: number, exp: number) {
  const token = signOutputToken(deps.signer, { key, jobId, maxBytes, expSec: exp });
  return { [OUTPUT_TOKEN_HEADER]: token };
}

async function workItem(row: UnitRow, deps: JobEngineDeps) {
  const { units, role, index } = readSpec(row.spec);
  const expSec = Math.floor(deps.clock().getTime() / 1000) + units.urlSec;
  const link = (key: string) => deps.storage.presignDownload(key, { expiresInSec: units.urlSec });
  const base = {
    inputUrl: await link(units.inputKey),
    outputUrl: `${deps.publicUrl}/worker/output-ticket`,
  };
  if (role !== "join") {
    const segment = units.cut.segments[index];
    return {
      ...base,
      outputHeaders: ticket(deps, unitOutputKey(row.id), row.id, UNIT_MAX_BYTES, expSec),
      params: {
        role,
        index,
        plan: units.plan,
        ...(role === "segment" ? { segment, frameSec: units.cut.frameSec } : {}),
      },
    };
  }
  // The join reads every segment's file in the cut plan's order, and the sound's.
  const siblings = await deps.db
    .selectFrom("restore_segments")
    .select(["id", "role", "seg_index"])
    .where("parent_id", "=", row.parent_id)
    .where("role", "<>", "join")
    .orderBy("seg_index")
    .execute();
  const parts = siblings.filter((s) => s.role === "segment").map((s) => unitOutputKey(s.id));
  const sound = siblings.find((s) => s.role === "sound");
  const picture = (key: string, maxBytes: number) => ({
    headers: ticket(deps, key, row.parent_id, maxBytes, expSec),
  });
  const frameKeys = units.frameKeys;
  return {
    ...base,
    outputHeaders: ticket(deps, units.outputKey, row.parent_id, units.outputMaxBytes, expSec),
    params: {
      role,
      index,
      plan: units.plan,
      cut: units.cut,
      parts: await Promise.all(parts.map(link)),
      sound: sound ? await link(unitOutputKey(sound.id)) : null,
      ...(units.stillKey ? { still: picture(units.stillKey, STILL_MAX_BYTES) } : {}),
      ...(frameKeys
        ? {
            frames: {
              before: picture(frameKeys.before, FRAME_MAX_BYTES),
              after: picture(frameKeys.after, FRAME_MAX_BYTES),
            },
          }
        : {}),
    },
  };
}

/** The segmented restore's work units' job definition. */
export const segmentJobs: JobDefinition<UnitRow, SegmentWorkParams> = {
  kind: SEGMENT_KIND,
  table: "restore_segments",
  noun: "restore segment",
  // Never charged, so never the cheapest thing a key could buy.
  cheapestCents: Number.POSITIVE_INFINITY,
  statuses: SEGMENT_STATUSES,
  final: SEGMENT_FINAL,
  moves: SEGMENT_MOVES,
  waiting: "queued",
  running: "running",
  params: SegmentWorkParams,
  workItem,
  fileLayout: UNIT_FILES,
  // A worker stores a unit's file while it runs (a retry may overwrite a failed attempt's).
  uploads: { output: { statuses: ["running"], once: false } },
  // Nothing to give back: the restore's own moves refund it.
  refund: async () => {},
  estimate: {
    classSql: (t) => sql`${sql.ref(`${t}.quality`)}`,
    amountSql: (t) => sql`${sql.ref(`${t}.span_sec`)}`,
    doneAmountSql: (t) => sql`${sql.ref(`${t}.span_sec`)}`,
    succeededSql: (t) => sql`${sql.ref(`${t}.status`)} = 'done'`,
    work: (row) => ({ workClass: row.quality, amount: row.span_sec }),
    defaults: DEFAULT_RATES,
  },
  variant: (row) => row.quality,
  spawn: spawnUnits,
  completed: unitDone,
  ended: unitEnded,
  beat: sumProgress,
  stopUnits,
  unitCounts: segmentCounts,
  async finish(row, result, deps) {
    if (row.role === "join") return { set: {} };
    // The join reads this file: a unit is done only once it is stored.
    if (!(await deps.storage.head(unitOutputKey(row.id)))) {
      return { retry: "The restored part did not reach storage." };
    }
    const cpu = result.meta.cpuSec;
    return { set: { cpu_sec: typeof cpu === "number" ? cpu : null } };
  },
  end: () => ({ move: "fail" }),
  exhausted: (attempts, last) => `${last} (failed ${attempts} times)`,
  workerLost: (attempts) => `The worker stopped responding (${attempts} attempts).`,
  files: (row) => [unitOutputKey(row.id)],
  filesAfterEnd: (row, outcome) => (outcome === "ended" ? [unitOutputKey(row.id)] : []),
  retention: () => [
    // Units whose files outlived their restore (a crash between a move and the deletion).
    {
      statuses: SEGMENT_FINAL,
      due: { column: "finished_at", before: (now) => new Date(now.getTime() - 3600_000) },
    },
  ],
};

/** Stops the units of a restore that ended (tests and operators; the sweeper finds orphans). */
export const stopRestoreUnits = stopUnits;
