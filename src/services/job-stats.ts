/**
 * Job figures read from the database at scrape time, for the whole cluster: how many jobs of
 * each kind are in each unfinished status, how many wait for a worker and since when. Only
 * unfinished statuses are counted (finished jobs pile up forever; their totals are counters),
 * so each query touches a few rows through the status indexes.
 */
import { sql } from "kysely";
import type { Db } from "./ledger.js";

/** A kind's table and statuses, as the job statistics read them. */
export interface JobTableSpec {
  kind: string;
  table: string;
  /** Statuses a job is still moving through (not done/failed/expired…). */
  active: readonly string[];
  /** The status a job waits for a worker in (without a lease). */
  waiting: string;
}

interface JobStats {
  byStatus: { kind: string; status: string; count: number }[];
  queues: { kind: string; depth: number; oldestWaitMs: number }[];
}

/** Jobs per kind and status, and queue depths, for metrics. */
export async function readJobStats(
  db: Db,
  specs: readonly JobTableSpec[],
  now: Date,
): Promise<JobStats> {
  const stats: JobStats = { byStatus: [], queues: [] };
  for (const spec of specs) {
    const table = sql.table(spec.table);
    const counts = await sql<{ status: string; n: number | string }>`
      SELECT status, count(*) AS n FROM ${table}
      WHERE status IN (${sql.join([...spec.active])}) GROUP BY status`.execute(db);
    const seen = new Map(counts.rows.map((r) => [r.status, Number(r.n)]));
    for (const status of spec.active) {
      stats.byStatus.push({ kind: spec.kind, status, count: seen.get(status) ?? 0 });
    }
    const queue = await sql<{ n: number | string; oldest: Date | string | null }>`
      SELECT count(*) AS n, min(queued_at) AS oldest FROM ${table}
      WHERE status = ${spec.waiting} AND lease_expires_at IS NULL`.execute(db);
    const row = queue.rows[0];
    const oldest = row?.oldest ? new Date(row.oldest).getTime() : null;
    stats.queues.push({
      kind: spec.kind,
      depth: Number(row?.n ?? 0),
      oldestWaitMs: oldest === null ? 0 : Math.max(0, now.getTime() - oldest),
    });
  }
  return stats;
}
