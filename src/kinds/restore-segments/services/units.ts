/**
 * A segmented restore's units and their restore: the units made at the hand-off (every segment,
 * and the sound when there is one), the join queued once all of them are done, the restore
 * ended through its own queue as the holder of its lease (done after the join; failed and
 * refunded — once — when a unit failed for good), the units of an ended restore stopped and
 * their files deleted, and the restore's progress summed from its units'.
 */
import { sql } from "kysely";
import { randomId } from "../../../domain/ids.js";
import { progressCrossesStep } from "../../../domain/webhooks.js";
import { CHILD_UNITS_OWNER } from "../../../jobs/children.js";
import type {
  ChildStopDeps,
  Db,
  JobColumns,
  JobEngineDeps,
  UnitCounts,
} from "../../../jobs/definition.js";
import { inTx } from "../../../jobs/move.js";
import { createJobQueue } from "../../../jobs/queue.js";
import { notifyJobEvent } from "../../../jobs/watch.js";
import { enqueueJobEvent } from "../../../jobs/webhook-outbox.js";
import type { WorkResult } from "../../../jobs/work.js";
import { type SegmentRole, STOPPED_MESSAGE, unitFailed } from "../rules/transitions.js";
import { readSpec, SegmentedUnits, type UnitSpec } from "./spec.js";
import type { RestoreSegmentsTable } from "./tables.js";

/** The kind whose jobs these units are part of. */
export const PARENT_KIND = "restore";
/** The units' own kind (the parent's hand-off names it). */
export const SEGMENT_KIND = "restoreseg";
/** Where a unit's file lives: `restoreseg/<unit id>/output`. */
export const unitOutputKey = (id: string) => `restoreseg/${id}/output`;

/** A unit's row as the engine hands it around. */
export type UnitRow = JobColumns & Omit<RestoreSegmentsTable, keyof JobColumns>;

/** Share of the restore's progress its analysis had (the units share the rest up to 0.97). */
const ANALYSED = 0.1;
const UNITS_SHARE = 0.87;

interface NewUnit {
  role: SegmentRole;
  index: number;
  spanSec: number;
}

async function insertUnits(
  tx: Db,
  parent: Pick<JobColumns, "id">,
  units: SegmentedUnits,
  list: NewUnit[],
  now: Date,
): Promise<number> {
  if (list.length === 0) return 0;
  const rows = list.map((u) => ({
    id: randomId("rseg"),
    parent_id: parent.id,
    role: u.role,
    seg_index: u.index,
    status: "queued" as const,
    amount_cents: 0,
    max_attempts: units.maxAttempts,
    created_at: now,
    updated_at: now,
    queued_at: now,
    quality: units.quality,
    span_sec: u.spanSec,
    spec: JSON.stringify({ units, role: u.role, index: u.index } satisfies UnitSpec),
  }));
  const inserted = await tx
    .insertInto("restore_segments")
    .values(rows)
    .onConflict((oc) => oc.columns(["parent_id", "role", "seg_index"]).doNothing())
    .returning("id")
    .execute();
  return inserted.length;
}

/** The hand-off's units: every segment, and the sound when the plan has one. */
export async function spawnUnits(
  tx: Db,
  parent: JobColumns,
  raw: unknown,
  deps: JobEngineDeps,
): Promise<void> {
  const units = SegmentedUnits.parse(raw);
  const list: NewUnit[] = units.cut.segments.map((s) => ({
    role: "segment",
    index: s.index,
    spanSec: s.endSec - s.startSec,
  }));
  const wholeSec = units.cut.endSec - units.cut.startSec;
  if (units.plan.audio) list.push({ role: "sound", index: 0, spanSec: wholeSec });
  const n = await insertUnits(tx, parent, units, list, deps.clock());
  deps.events?.restoreSegmentsQueued({ count: n });
}

/** A unit is done: the join once every other unit is; after the join, the restore is done. */
export async function unitDone(row: UnitRow, deps: JobEngineDeps): Promise<void> {
  if (row.role === "join") return finishParent(row, deps);
  await sumProgress(row, deps);
  const { rows } = await sql<{ open: string | number }>`
    SELECT count(*) AS open FROM restore_segments
    WHERE parent_id = ${row.parent_id} AND role <> 'join' AND status <> 'done'`.execute(deps.db);
  if (Number(rows[0]?.open ?? 1) > 0) return;
  // Each unit counts after its own move committed, so the last one always sees all done; two
  // that finish together may both insert — the unique index keeps one.
  const spec = readSpec(row.spec);
  const wholeSec = spec.units.cut.endSec - spec.units.cut.startSec;
  const n = await insertUnits(
    deps.db,
    { id: row.parent_id },
    spec.units,
    [{ role: "join", index: 0, spanSec: wholeSec }],
    deps.clock(),
  );
  if (n > 0) {
    deps.events?.restoreSegmentsQueued({ count: n });
    await deps.notifyJobs();
  }
}

function parentQueue(deps: JobEngineDeps) {
  const def = deps.definition?.(PARENT_KIND);
  if (!def) throw new Error(`no ${PARENT_KIND} kind registered for its segments`);
  return createJobQueue(def, deps);
}

/** The join stored the result: the restore is done (its own `finish` checks the file). */
async function finishParent(join: UnitRow, deps: JobEngineDeps): Promise<void> {
  const result: WorkResult = { outputBytes: 0, meta: { segmented: "joined" } };
  const outcome = await parentQueue(deps).complete(join.parent_id, CHILD_UNITS_OWNER, result);
  if (outcome !== "ok") deps.log.warn("a joined restore was no longer waiting", { outcome });
  await deleteUnitFiles(deps, join.parent_id);
}

/**
 * A unit failed for good: its restore fails and is refunded (once: the move is conditional on
 * the lease its units hold), and the other units are stopped.
 */
export async function unitEnded(row: UnitRow, deps: JobEngineDeps): Promise<void> {
  const message = unitFailed(row.role, row.seg_index, row.error ?? "");
  await parentQueue(deps).fail(row.parent_id, CHILD_UNITS_OWNER, { kind: "final", message });
  await stopUnits(deps, row.parent_id);
}

/**
 * Stops every unit of `parentId` not yet ended (a running one sees it at its next heartbeat:
 * its lease is gone) and deletes every unit's file. Returns how many were stopped.
 */
export async function stopUnits(deps: ChildStopDeps, parentId: string): Promise<number> {
  const now = deps.clock();
  const stopped = await deps.db
    .updateTable("restore_segments")
    .set({
      status: "cancelled",
      lease_owner: null,
      lease_expires_at: null,
      error: STOPPED_MESSAGE,
      finished_at: now,
      updated_at: now,
    })
    .where("parent_id", "=", parentId)
    .where("status", "in", ["queued", "running"])
    .returning("id")
    .execute();
  await deleteUnitFiles(deps, parentId);
  return stopped.length;
}

/** Deletes the files of every unit of `parentId` (the join's result is the restore's own). */
async function deleteUnitFiles(deps: ChildStopDeps, parentId: string): Promise<void> {
  const units = await deps.db
    .selectFrom("restore_segments")
    .select(["id", "role"])
    .where("parent_id", "=", parentId)
    .execute();
  for (const u of units) {
    if (u.role === "join") continue;
    await deps.storage.delete(unitOutputKey(u.id)).catch((err) => {
      deps.log.warn("could not delete a segment's file", { id: u.id, err });
    });
  }
  await deps.db
    .updateTable("restore_segments")
    .set({ files_deleted_at: deps.clock() })
    .where("parent_id", "=", parentId)
    .where("files_deleted_at", "is", null)
    .execute();
}

/**
 * The restore's progress from its units' (each weighed by its seconds of work: the sound and
 * the join count less than the picture), written while the units hold its lease; a restore no
 * longer waiting on them has its units stopped.
 */
export async function sumProgress(row: UnitRow, deps: JobEngineDeps): Promise<void> {
  const { rows } = await sql<{ done: number | null; whole: number | null }>`
    SELECT sum(span_sec * w * CASE WHEN status = 'done' THEN 1 ELSE COALESCE(progress, 0) END)
             AS done,
           sum(span_sec * w) AS whole
    FROM (SELECT *, CASE role WHEN 'segment' THEN 1.0 ELSE 0.1 END AS w
          FROM restore_segments WHERE parent_id = ${row.parent_id}) u`.execute(deps.db);
  const whole = Number(rows[0]?.whole ?? 0);
  if (whole <= 0) return;
  const progress = ANALYSED + UNITS_SHARE * Math.min(1, Number(rows[0]?.done ?? 0) / whole);
  const now = deps.clock();
  const updated = await inTx(deps.db, async (tx) => {
    const before = await sql<{ progress: number | null; status: string; lease_owner: string }>`
      SELECT progress, status, lease_owner FROM restore_jobs WHERE id = ${row.parent_id}
      FOR UPDATE`.execute(tx);
    const parent = before.rows[0];
    if (parent?.status !== "processing" || parent.lease_owner !== CHILD_UNITS_OWNER) {
      return "gone" as const;
    }
    // Progress only goes forward (a retried unit starts again from 0).
    if (parent.progress !== null && parent.progress >= progress) return "same" as const;
    const moved = await sql<JobColumns>`
      UPDATE restore_jobs SET progress = ${progress}, updated_at = ${now}
      WHERE id = ${row.parent_id} RETURNING *`.execute(tx);
    const job = moved.rows[0];
    if (!job) return "gone" as const;
    await notifyJobEvent(tx, job.id);
    if (progressCrossesStep(parent.progress, progress)) {
      await enqueueJobEvent(tx, { kind: PARENT_KIND, row: job }, "progress", now);
    }
    return "ok" as const;
  });
  if (updated === "gone") await stopUnits(deps, row.parent_id);
}

/**
 * Units whose restore no longer waits on them (it ended by any way: failed, expired, an
 * operator's move): stopped, their files deleted. The kind's sweeper runs it.
 */
export async function stopOrphans(deps: JobEngineDeps): Promise<number> {
  const { rows } = await sql<{ parent_id: string }>`
    SELECT DISTINCT u.parent_id FROM restore_segments u
    JOIN restore_jobs j ON j.id = u.parent_id
    WHERE u.status IN ('queued', 'running')
      AND NOT (j.status = 'processing' AND j.lease_owner = ${CHILD_UNITS_OWNER})
    LIMIT 100`.execute(deps.db);
  let n = 0;
  for (const r of rows) n += await stopUnits(deps, r.parent_id);
  return n;
}

/**
 * How many segments of each restore are done, running and waiting (the sound and the join are
 * not segments; units stopped with an ended restore count in none): its view shows them.
 */
export async function segmentCounts(
  db: Db,
  parentIds: readonly string[],
): Promise<Map<string, UnitCounts>> {
  const rows = await db
    .selectFrom("restore_segments")
    .select(["parent_id", "status", (eb) => eb.fn.countAll<string | number>().as("n")])
    .where("parent_id", "in", [...parentIds])
    .where("role", "=", "segment")
    .groupBy(["parent_id", "status"])
    .execute();
  const counts = new Map<string, UnitCounts>();
  for (const r of rows) {
    const c = counts.get(r.parent_id) ?? { done: 0, running: 0, waiting: 0 };
    const n = Number(r.n);
    if (r.status === "done") c.done += n;
    else if (r.status === "running") c.running += n;
    else if (r.status === "queued") c.waiting += n;
    counts.set(r.parent_id, c);
  }
  return counts;
}
