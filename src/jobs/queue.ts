/**
 * The job engine's worker side, written once for every kind: claim (FOR UPDATE SKIP LOCKED)
 * under a lease, heartbeat with progress, complete, fail (retry while attempts remain, else
 * end and refund in the same transaction), release on shutdown (no attempt used) and recovery
 * of lapsed leases. Every change goes through moveJob with the lease owner as a guard.
 */
import { sql } from "kysely";
import { progressCrossesStep } from "../domain/webhooks.js";
import { CHILD_UNITS_LEASE, CHILD_UNITS_OWNER } from "./children.js";
import type { HandOff, JobColumns, JobDefinition, JobEngineDeps, JobFields } from "./definition.js";
import { assignments, findJobRow, inTx, type MoveGuard, moveJob } from "./move.js";
import { notifyJobEvent } from "./watch.js";
import { enqueueJobEvent } from "./webhook-outbox.js";
import type { JobQueue, ReportOutcome, WorkFailure, WorkNote, WorkResult } from "./work.js";

const LEASE_CLEARED = { lease_owner: null, lease_expires_at: null } as const;
const RECOVER_BATCH = 100;

/** A kind's queue together with the definition it runs (the worker API and guards read it). */
export interface DefinedQueue extends JobQueue {
  readonly definition: JobDefinition;
}

/** A kind's queue for workers: claim, heartbeat, complete, fail, release, lease recovery. */
export function createJobQueue<Row extends JobColumns>(
  def: JobDefinition<Row>,
  deps: JobEngineDeps,
): DefinedQueue {
  const later = (ms: number) => new Date(deps.clock().getTime() + ms);
  const since = (at: Date | null, now: Date) =>
    at === null ? null : Math.max(0, now.getTime() - new Date(at).getTime());
  const reportFinished = (row: Row, now: Date) =>
    deps.events?.jobFinished({
      kind: def.kind,
      status: row.status,
      variant: def.variant?.(row) ?? def.kind,
      runMs: since(row.started_at, now),
    });

  async function claim(workerId: string, leaseMs: number) {
    const now = deps.clock();
    const row = await inTx(deps.db, async (tx) => {
      const claimed = await claimRow(tx, workerId, leaseMs, now);
      // The first claim starts the job (a retry's or a released job's claim does not again).
      const first = claimed && new Date(claimed.started_at ?? 0).getTime() === now.getTime();
      if (claimed && first)
        await enqueueJobEvent(tx, { kind: def.kind, row: claimed }, "started", now);
      return claimed;
    });
    if (!row) return null;
    // Wait is queued → first claim; a retry's wait would include the failed attempt.
    const waitMs = row.attempts === 1 ? since(row.queued_at, now) : null;
    deps.events?.jobClaimed({ kind: def.kind, waitMs });
    const body = await def.workItem(row, deps);
    return {
      kind: def.kind,
      jobId: row.id,
      attempt: row.attempts,
      leaseExpiresAt: new Date(row.lease_expires_at ?? now).toISOString(),
      leaseMs,
      ...body,
    };
  }

  async function claimRow(db: JobEngineDeps["db"], workerId: string, leaseMs: number, now: Date) {
    const table = sql.table(def.table);
    const result = await sql<Row>`
      UPDATE ${table}
      SET ${assignments({
        status: def.moves.claim.to,
        lease_owner: workerId,
        lease_expires_at: later(leaseMs),
        attempts: sql`attempts + 1`,
        progress: 0,
        started_at: sql`COALESCE(started_at, ${now})`,
        claimed_at: now,
        claimed_by: workerId,
        updated_at: now,
      })}
      WHERE id = (
        SELECT id FROM ${table}
        WHERE status = ${def.waiting} AND lease_expires_at IS NULL
        ORDER BY queued_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
      ) AND status = ${def.waiting} AND lease_expires_at IS NULL
      RETURNING *`.execute(db);
    return result.rows[0];
  }

  /**
   * The head of the kind's line (the claimable index's first entry), for fair claims; a job
   * waiting without a queued_at sorts after every dated one, as the claim's ORDER BY puts it.
   */
  async function oldestWaiting(): Promise<Date | null> {
    const { rows } = await sql<{ queued_at: Date | string | null }>`
      SELECT queued_at FROM ${sql.table(def.table)}
      WHERE status = ${def.waiting} AND lease_expires_at IS NULL
      ORDER BY queued_at, id LIMIT 1`.execute(deps.db);
    const head = rows[0];
    if (!head) return null;
    return head.queued_at === null ? new Date(8.64e15) : new Date(head.queued_at);
  }

  /** Whether workerId holds the job's lease now; "not_found" for an unknown job. */
  async function holder(id: string, workerId: string): Promise<ReportOutcome | Row> {
    const row = await findJobRow(deps.db, def, id);
    if (!row) return "not_found";
    if (row.status !== def.running || row.lease_owner !== workerId) return "lease_lost";
    return row;
  }

  async function heartbeat(id: string, workerId: string, leaseMs: number, progress: number | null) {
    const now = deps.clock();
    const fields: JobFields = { lease_expires_at: later(leaseMs), updated_at: now };
    if (progress !== null) fields.progress = progress;
    // Progress is what callers watch: its notification and webhook event commit with it.
    const beat = (db: JobEngineDeps["db"]) =>
      sql<Row & { progress_before: number | null }>`
      UPDATE ${sql.table(def.table)} SET ${assignments(fields)}
      FROM (SELECT progress AS progress_before FROM ${sql.table(def.table)}
            WHERE id = ${id} FOR UPDATE) AS before
      WHERE id = ${id} AND status = ${def.running} AND lease_owner = ${workerId}
      RETURNING *`.execute(db);
    const result =
      progress === null
        ? await beat(deps.db)
        : await inTx(deps.db, async (tx) => {
            const beaten = await beat(tx);
            const row = beaten.rows[0];
            if (!row) return beaten;
            await notifyJobEvent(tx, id);
            if (progressCrossesStep(row.progress_before, progress)) {
              await enqueueJobEvent(tx, { kind: def.kind, row }, "progress", now);
            }
            return beaten;
          });
    const beaten = result.rows[0];
    if (beaten) {
      if (progress !== null && def.beat) await afterMove("beat", () => def.beat?.(beaten, deps));
      return "ok" as const;
    }
    return (await findJobRow(deps.db, def, id)) ? ("lease_lost" as const) : ("not_found" as const);
  }

  async function end(row: Row, failure: WorkFailure, guard: MoveGuard, message: string) {
    const now = deps.clock();
    const how = def.end(failure);
    const moved = await moveJob(
      deps.db,
      def,
      row.id,
      how.move,
      now,
      { ...LEASE_CLEARED, ...how.set, error: message, finished_at: now },
      { ...guard, events: deps.events },
    );
    if (!moved) return false;
    reportFinished(moved, now);
    await deleteFiles(def.filesAfterEnd(moved, "ended"));
    deps.log.info("job ended", { kind: def.kind, job_id: row.id, status: moved.status });
    if (def.ended) await afterMove("ended", () => def.ended?.(moved, deps));
    return true;
  }

  async function requeue(row: Row, guard: MoveGuard, reason: "failed" | "lapsed") {
    const set = { ...LEASE_CLEARED, progress: 0, error: null };
    const moved = await moveJob(deps.db, def, row.id, "requeue", deps.clock(), set, guard);
    if (moved) deps.events?.jobRetried({ kind: def.kind, reason });
    if (moved) await deps.notifyJobs();
    return moved !== undefined;
  }

  /**
   * A definition's hook after a move: the move stands whatever the hook does (its own writes
   * are conditional, and a unit whose next step failed is seen again by the kind's sweeper).
   */
  async function afterMove(what: string, hook: () => Promise<void> | undefined) {
    await Promise.resolve()
      .then(hook)
      .catch((err) => deps.log.error("a job hook failed", { kind: def.kind, hook: what, err }));
  }

  /**
   * The attempt ends by handing the job to child units (./children.ts): the lease passes to
   * them and the child kind inserts the units, in one transaction.
   */
  async function handOff(row: Row, workerId: string, h: HandOff): Promise<ReportOutcome> {
    const child = deps.definition?.(h.childKind);
    if (!child?.spawn)
      throw new Error(`${def.kind} hands off to ${h.childKind}, which spawns none`);
    const now = deps.clock();
    const moved = await inTx(deps.db, async (tx) => {
      const fields = {
        ...h.set,
        lease_owner: CHILD_UNITS_OWNER,
        lease_expires_at: CHILD_UNITS_LEASE,
        updated_at: now,
      };
      const result = await sql<Row>`
        UPDATE ${sql.table(def.table)} SET ${assignments(fields)}
        WHERE id = ${row.id} AND status = ${def.running} AND lease_owner = ${workerId}
        RETURNING *`.execute(tx);
      const parent = result.rows[0];
      if (parent) await child.spawn?.(tx, parent, h.units, deps);
      return parent;
    });
    if (!moved) return "lease_lost";
    deps.log.info("job handed to child units", { kind: def.kind, job_id: row.id, to: h.childKind });
    await deps.notifyJobs();
    return "ok";
  }

  async function deleteFiles(keys: string[]) {
    for (const key of keys) {
      await deps.storage.delete(key).catch((err) => {
        deps.log.warn("could not delete a job file", { key, err });
      });
    }
  }

  async function fail(id: string, workerId: string, failure: WorkFailure): Promise<ReportOutcome> {
    const row = await holder(id, workerId);
    if (typeof row === "string") return row;
    const guard = { leaseOwner: workerId };
    if (failure.kind === "retry" && row.attempts < row.max_attempts) {
      await requeue(row, guard, "failed");
      return "ok";
    }
    const exhausted = failure.kind === "retry";
    const message = exhausted ? def.exhausted(row.attempts, failure.message) : failure.message;
    await end(row, failure, guard, message);
    return "ok";
  }

  /** A running attempt's facts, for the kind to act on (only from the lease holder). */
  async function note(id: string, workerId: string, facts: WorkNote): Promise<ReportOutcome> {
    const row = await holder(id, workerId);
    if (typeof row === "string") return row;
    await def.noted?.(row, facts, deps);
    return "ok";
  }

  async function complete(id: string, workerId: string, result: WorkResult) {
    const row = await holder(id, workerId);
    if (typeof row === "string") return row;
    const finished = await def.finish(row, result, deps);
    if ("retry" in finished) return fail(id, workerId, { kind: "retry", message: finished.retry });
    if ("handOff" in finished) return handOff(row, workerId, finished.handOff);
    const now = deps.clock();
    const moved = await moveJob(
      deps.db,
      def,
      id,
      "complete",
      now,
      {
        ...LEASE_CLEARED,
        progress: 1,
        error: null,
        finished_at: now,
        expires_at: new Date(now.getTime() + deps.retentionHours * 3600_000),
        ...finished.set,
      },
      { leaseOwner: workerId },
    );
    if (!moved) return "lease_lost" as const;
    reportFinished(moved, now);
    await deleteFiles(def.filesAfterEnd(moved, "done"));
    if (def.completed) await afterMove("completed", () => def.completed?.(moved, deps));
    return "ok" as const;
  }

  /** A worker that stops (shutdown) hands the job back; the attempt does not count. */
  async function release(id: string, workerId: string): Promise<ReportOutcome> {
    const row = await holder(id, workerId);
    if (typeof row === "string") return row;
    const set = { ...LEASE_CLEARED, progress: 0, attempts: sql`GREATEST(attempts - 1, 0)` };
    const moved = await moveJob(deps.db, def, id, "release", deps.clock(), set, {
      leaseOwner: workerId,
    });
    if (moved) await deps.notifyJobs();
    return moved ? "ok" : "lease_lost";
  }

  async function recoverLapsedLeases() {
    const now = deps.clock();
    const lapsed = await sql<Row>`
      SELECT * FROM ${sql.table(def.table)}
      WHERE status = ${def.running} AND lease_expires_at < ${now}
      ORDER BY lease_expires_at LIMIT ${RECOVER_BATCH}`.execute(deps.db);
    let n = 0;
    for (const row of lapsed.rows) {
      const guard = { lapsedBefore: now };
      const retry = row.attempts < row.max_attempts;
      const done = retry
        ? await requeue(row, guard, "lapsed")
        : await end(row, { kind: "final", message: "" }, guard, def.workerLost(row.attempts));
      if (!done) continue;
      n++;
      deps.events?.leaseLapsed({ kind: def.kind, outcome: retry ? "requeued" : "failed" });
    }
    return n;
  }

  return {
    kind: def.kind,
    // The engine reads a definition's rows only through the definition itself.
    definition: def as unknown as JobDefinition,
    oldestWaiting,
    claim,
    heartbeat,
    note,
    complete,
    fail,
    release,
    recoverLapsedLeases,
  };
}
