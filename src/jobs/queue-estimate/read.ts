/**
 * Queue position and ETA for the waiting and running jobs among some rows of one kind, in at
 * most two indexed queries whatever the number of rows: one for throughput (recent finished
 * runs and the workers that claimed recently), one for the running jobs and the work queued
 * ahead of each waiting row. The arithmetic is ./model.ts.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { DB } from "../../db/schema.js";
import type { JobDefinition } from "../definition.js";
import {
  type ClassRates,
  type QueueEstimate,
  type QueueSnapshot,
  RUN_SAMPLE_LIMIT,
  RUN_SAMPLE_WINDOW_MS,
  type RunningJob,
  type RunSample,
  runningEstimate,
  runRates,
  WORKER_WINDOW_MS,
  type WorkAhead,
  waitingEstimate,
} from "./model.js";

export type { QueueEstimate } from "./model.js";

/** The columns the estimate reads from a job row. */
interface EstimatedRow {
  id: string;
  status: string;
  lease_expires_at: Date | null;
  progress: number | null;
  claimed_at: Date | null;
}

/**
 * How one job kind is measured: its definition (table, waiting and running statuses) and what
 * a unit of its work is.
 */
export interface QueueKind<Row extends EstimatedRow> {
  def: Pick<JobDefinition, "table" | "waiting" | "running">;
  /** Column holding the work class (quality, size). */
  classColumn: string;
  /** SQL for a job's amount of work, on the table aliased `alias`. */
  amountSql(alias: string): RawBuilder<number>;
  /** The same for a finished job (may prefer measured values). */
  doneAmountSql(alias: string): RawBuilder<number>;
  /** A row's class and amount (the same values as the SQL). */
  work(row: Row): { workClass: string; amount: number };
  defaults: ClassRates;
}

type Db = Kysely<DB>;

interface StatRow {
  part: "sample" | "worker";
  work_class: string | null;
  amount: number | string | null;
  run_sec: number | string | null;
  worker: string | null;
}

interface QueueRow {
  part: "running" | "ahead";
  job_id: string;
  work_class: string;
  amount: number | string;
  n: number | string;
  progress: number | null;
  claimed_at: Date | string | null;
  worker: string | null;
}

const secondsBetween = (from: Date | string | null, to: Date) =>
  from === null ? 0 : Math.max(0, (to.getTime() - new Date(from).getTime()) / 1000);

async function readStats<Row extends EstimatedRow>(db: Db, kind: QueueKind<Row>, now: Date) {
  const t = sql.table(kind.def.table);
  const sampleSince = new Date(now.getTime() - RUN_SAMPLE_WINDOW_MS);
  const workerSince = new Date(now.getTime() - WORKER_WINDOW_MS);
  const { rows } = await sql<StatRow>`
    SELECT 'sample' AS part, s.work_class, s.amount, s.run_sec, NULL AS worker FROM (
      SELECT ${sql.ref(`d.${kind.classColumn}`)} AS work_class,
        (${kind.doneAmountSql("d")})::float8 AS amount,
        EXTRACT(EPOCH FROM d.finished_at - d.claimed_at)::float8 AS run_sec
      FROM ${t} AS d
      WHERE d.output_key IS NOT NULL AND d.claimed_at IS NOT NULL AND d.finished_at >= ${sampleSince}
      ORDER BY d.finished_at DESC LIMIT ${RUN_SAMPLE_LIMIT}
    ) AS s
    UNION ALL
    SELECT DISTINCT 'worker', NULL, NULL::float8, NULL::float8, c.claimed_by FROM ${t} AS c
    WHERE c.claimed_at IS NOT NULL AND c.claimed_at >= ${workerSince}`.execute(db);
  const samples: RunSample[] = [];
  const workers = new Set<string>();
  for (const r of rows) {
    if (r.part === "worker" && r.worker !== null) workers.add(r.worker);
    if (r.part === "sample" && r.work_class !== null) {
      samples.push({
        workClass: r.work_class,
        amount: Number(r.amount),
        runSec: Number(r.run_sec),
      });
    }
  }
  return { rates: runRates(samples, kind.defaults), workers };
}

/** The running jobs of the kind, and the work queued ahead of each of `waitingIds` by class. */
async function readQueue<Row extends EstimatedRow>(
  db: Db,
  kind: QueueKind<Row>,
  waitingIds: string[],
  now: Date,
) {
  const t = sql.table(kind.def.table);
  const cls = (alias: string) => sql.ref(`${alias}.${kind.classColumn}`);
  // The join reads, for each waiting row, the claimable index from the queue's head to it.
  const { rows } = await sql<QueueRow>`
    SELECT 'running' AS part, r.id AS job_id, ${cls("r")} AS work_class,
      (${kind.amountSql("r")})::float8 AS amount, 1 AS n, r.progress, r.claimed_at,
      r.lease_owner AS worker
    FROM ${t} AS r
    WHERE r.status = ${kind.def.running} AND r.lease_expires_at IS NOT NULL
    UNION ALL
    SELECT 'ahead', g.id, ${cls("w")}, SUM(${kind.amountSql("w")})::float8, COUNT(*),
      NULL, NULL, NULL
    FROM ${t} AS g
    JOIN ${t} AS w ON w.status = ${kind.def.waiting} AND w.lease_expires_at IS NULL
      AND w.queued_at <= g.queued_at AND (w.queued_at < g.queued_at OR w.id < g.id)
    WHERE g.id IN (${sql.join(waitingIds)})
    GROUP BY g.id, ${cls("w")}`.execute(db);
  const running: RunningJob[] = [];
  const owners = new Set<string>();
  const ahead = new Map<string, Record<string, { count: number; amount: number }>>();
  for (const r of rows) {
    const amount = Number(r.amount);
    if (r.part === "running") {
      const elapsedSec = secondsBetween(r.claimed_at, now);
      running.push({ workClass: r.work_class, amount, progress: r.progress, elapsedSec });
      if (r.worker !== null) owners.add(r.worker);
      continue;
    }
    const byClass = ahead.get(r.job_id) ?? {};
    byClass[r.work_class] = { count: Number(r.n), amount };
    ahead.set(r.job_id, byClass);
  }
  return { running, owners, ahead };
}

/** A row waits for a worker (no lease) or runs under one; other rows get no estimate. */
function phase<Row extends EstimatedRow>(kind: QueueKind<Row>, row: Row) {
  if (row.status === kind.def.waiting && row.lease_expires_at === null) return "waiting";
  if (row.status === kind.def.running && row.lease_expires_at !== null) return "running";
  return undefined;
}

/**
 * Estimates for the rows that wait or run, by id (other rows are absent). No query at all when
 * none does; one when only running rows are asked about; two otherwise.
 */
export async function estimateQueue<Row extends EstimatedRow>(
  db: Db,
  kind: QueueKind<Row>,
  rows: readonly Row[],
  now: Date,
): Promise<Map<string, QueueEstimate>> {
  const out = new Map<string, QueueEstimate>();
  const waiting = rows.filter((r) => phase(kind, r) === "waiting");
  const running = rows.filter((r) => phase(kind, r) === "running");
  if (waiting.length === 0 && running.length === 0) return out;
  const stats = await readStats(db, kind, now);
  const snapshot: QueueSnapshot = { now, rates: stats.rates, running: [], workers: 1 };
  for (const row of running) {
    const elapsedSec = secondsBetween(row.claimed_at, now);
    out.set(
      row.id,
      runningEstimate(snapshot, { ...kind.work(row), progress: row.progress, elapsedSec }),
    );
  }
  if (waiting.length === 0) return out;
  const ids = waiting.map((r) => r.id);
  const queue = await readQueue(db, kind, ids, now);
  const workers = new Set([...stats.workers, ...queue.owners]);
  const full: QueueSnapshot = { ...snapshot, running: queue.running, workers: workers.size };
  for (const row of waiting) {
    const ahead: WorkAhead = queue.ahead.get(row.id) ?? {};
    out.set(row.id, waitingEstimate(full, kind.work(row), ahead));
  }
  return out;
}
