/**
 * Queue position and ETA for the waiting and running jobs among some rows of one kind: the one
 * estimator behind every surface (REST, MCP, the console, the client — each reads the job's
 * `queue` field from here). It reads what every kind's workers are doing, in at most two
 * indexed queries whatever the number of rows:
 * 1. for every kind: its recent successful runs (speeds, and the workers that finished one
 *    lately) and its jobs on a worker now (progress, elapsed time, lease) — not a job handed
 *    to child units, which holds no worker: its units wait in the line and run as jobs;
 * 2. for every kind: the jobs waiting ahead of each waiting row asked about, in the one line
 *    workers take them from (oldest queued_at first, then kind order, then id — as
 *    work-source.ts claims them).
 * The arithmetic is ./model.ts.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { DB } from "../../db/schema.js";
import { at as elementAt } from "../../domain/checked-index.js";
import { CHILD_UNITS_OWNER } from "../children.js";
import type { JobColumns } from "../definition.js";
import type { EstimatedKind } from "./kinds.js";
import {
  type KindRates,
  LIVE_WORKER_WINDOW_MS,
  type QueueEstimate,
  type QueueSnapshot,
  RUN_SAMPLE_LIMIT,
  RUN_SAMPLE_WINDOW_MS,
  type RunningJob,
  type RunSample,
  runningEstimate,
  runRates,
  type WorkAhead,
  waitingEstimate,
} from "./model.js";

export type { QueueEstimate } from "./model.js";

/** The columns the estimate reads from a job row. */
type EstimatedRow = Pick<
  JobColumns,
  "id" | "status" | "lease_expires_at" | "progress" | "claimed_at" | "queued_at"
>;

type Db = Kysely<DB>;

interface WorkRow {
  part: "sample" | "running";
  kix: number;
  work_class: string;
  amount: number | string;
  run_sec: number | string | null;
  progress: number | null;
  claimed_at: Date | string | null;
  worker: string | null;
  at: Date | string | null;
}

interface AheadRow {
  job_id: string;
  kix: number;
  work_class: string;
  amount: number | string;
  n: number | string;
}

const secondsBetween = (from: Date | string | null, to: Date) =>
  from === null ? 0 : Math.max(0, (to.getTime() - new Date(from).getTime()) / 1000);

const cls = (k: EstimatedKind, alias: string) => k.estimate.classSql(alias);

/** One kind's part of the first query: its recent successful runs and its running jobs. */
function workOf(k: EstimatedKind, kix: number, now: Date): RawBuilder<WorkRow> {
  const t = sql.table(k.table);
  const since = new Date(now.getTime() - RUN_SAMPLE_WINDOW_MS);
  return sql<WorkRow>`
    SELECT 'sample' AS part, ${kix}::int AS kix, s.work_class, s.amount, s.run_sec,
      NULL::float8 AS progress, NULL::timestamptz AS claimed_at, s.worker, s.at
    FROM (
      SELECT ${cls(k, "d")} AS work_class, (${k.estimate.doneAmountSql("d")})::float8 AS amount,
        EXTRACT(EPOCH FROM d.finished_at - d.claimed_at)::float8 AS run_sec,
        d.claimed_by AS worker, d.finished_at AS at
      FROM ${t} AS d
      WHERE ${k.estimate.succeededSql("d")} AND d.claimed_at IS NOT NULL
        AND d.finished_at >= ${since}
      ORDER BY d.finished_at DESC LIMIT ${RUN_SAMPLE_LIMIT}
    ) AS s
    UNION ALL
    SELECT 'running', ${kix}::int, ${cls(k, "r")}, (${k.estimate.amountSql("r")})::float8,
      NULL::float8, r.progress, r.claimed_at, r.lease_owner, r.lease_expires_at
    FROM ${t} AS r
    WHERE r.status = ${k.running} AND r.lease_expires_at IS NOT NULL
      AND r.lease_owner <> ${CHILD_UNITS_OWNER}`;
}

interface Work {
  rates: KindRates;
  /** Jobs whose worker holds a live lease. */
  running: RunningJob[];
  /** Jobs whose lease lapsed: lease recovery puts them back at the head of the line. */
  lapsed: WorkAhead[];
  workers: number;
}

/** What the workers are doing now, over every kind: one query. */
async function readWork(db: Db, kinds: readonly EstimatedKind[], now: Date): Promise<Work> {
  const parts = kinds.map((k, i) => workOf(k, i, now));
  const { rows } = await sql<WorkRow>`${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  const samples = kinds.map((): RunSample[] => []);
  const running: RunningJob[] = [];
  const lapsed: WorkAhead[] = [];
  const live = new Set<string>();
  const liveSince = now.getTime() - LIVE_WORKER_WINDOW_MS;
  for (const r of rows) {
    // r.kix is the index the query was given for one of `kinds` (a VALUES list built from them).
    const kind = elementAt(kinds, r.kix).kind;
    const amount = Number(r.amount);
    const at = r.at === null ? null : new Date(r.at).getTime();
    if (r.part === "sample") {
      samples[r.kix]?.push({ workClass: r.work_class, amount, runSec: Number(r.run_sec) });
      // Finished a job a moment ago: between two jobs, about to take the next.
      if (r.worker !== null && at !== null && at >= liveSince) live.add(r.worker);
    } else if (at !== null && at < now.getTime()) {
      lapsed.push({ kind, workClass: r.work_class, amount, count: 1 });
    } else {
      const elapsedSec = secondsBetween(r.claimed_at, now);
      running.push({ kind, workClass: r.work_class, amount, progress: r.progress, elapsedSec });
      if (r.worker !== null) live.add(r.worker);
    }
  }
  const rates: Record<string, KindRates[string]> = {};
  kinds.forEach((k, i) => {
    rates[k.kind] = runRates(samples[i] ?? [], k.estimate.defaults);
  });
  return { rates, running, lapsed, workers: live.size };
}

/**
 * The jobs waiting ahead of each of `rows` (waiting rows of kind `kix`), by kind and class:
 * one query, each kind's claimable index read from the head of its line to each row.
 */
async function readAhead(
  db: Db,
  kinds: readonly EstimatedKind[],
  kix: number,
  rows: readonly EstimatedRow[],
): Promise<Map<string, WorkAhead[]>> {
  const asked = sql.join(
    rows.map((r) => sql`(${r.id}::text, ${r.queued_at}::timestamptz, ${kix}::int)`),
  );
  const parts = kinds.map((k, i) => {
    const t = sql.table(k.table);
    return sql<AheadRow>`
      SELECT g.id AS job_id, ${i}::int AS kix, ${cls(k, "w")} AS work_class,
        SUM(${k.estimate.amountSql("w")})::float8 AS amount, COUNT(*) AS n
      FROM (VALUES ${asked}) AS g(id, queued_at, kix)
      JOIN ${t} AS w ON w.status = ${k.waiting} AND w.lease_expires_at IS NULL
        AND (w.queued_at < g.queued_at OR (w.queued_at = g.queued_at
          AND (${i}::int < g.kix OR (${i}::int = g.kix AND w.id < g.id))))
      GROUP BY 1, 3`;
  });
  const { rows: found } = await sql<AheadRow>`${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  const ahead = new Map<string, WorkAhead[]>();
  for (const r of found) {
    const list = ahead.get(r.job_id) ?? [];
    // r.kix is the index the query was given for one of `kinds` (a VALUES list built from them).
    const kind = elementAt(kinds, r.kix).kind;
    list.push({ kind, workClass: r.work_class, amount: Number(r.amount), count: Number(r.n) });
    ahead.set(r.job_id, list);
  }
  return ahead;
}

/** A row waits for a worker (no lease) or runs under one; other rows get no estimate. */
function phase(kind: EstimatedKind, row: EstimatedRow) {
  if (row.status === kind.waiting && row.lease_expires_at === null) return "waiting";
  if (row.status === kind.running && row.lease_expires_at !== null) return "running";
  return undefined;
}

/**
 * Estimates for the rows of `target` that wait or run, by id (other rows are absent), knowing
 * every kind in `kinds` (the target is added when missing). No query when none waits or runs,
 * one when only running rows are asked about, two otherwise.
 */
export async function estimateQueue<Row extends JobColumns>(
  db: Db,
  target: EstimatedKind<Row>,
  kinds: readonly EstimatedKind[],
  rows: readonly Row[],
  now: Date,
): Promise<Map<string, QueueEstimate>> {
  const out = new Map<string, QueueEstimate>();
  const waiting = rows.filter((r) => phase(target, r) === "waiting");
  const running = rows.filter((r) => phase(target, r) === "running");
  if (waiting.length === 0 && running.length === 0) return out;
  const all: readonly EstimatedKind[] = kinds.some((k) => k.kind === target.kind)
    ? kinds
    : // cast: the estimate reads only the kind's table and statuses, which every job definition has
      [...kinds, target as unknown as EstimatedKind];
  const kix = all.findIndex((k) => k.kind === target.kind);
  const work = await readWork(db, all, now);
  const snapshot: QueueSnapshot = {
    now,
    rates: work.rates,
    running: work.running,
    workers: work.workers,
  };
  const workOfRow = (row: Row) => ({ kind: target.kind, ...target.estimate.work(row) });
  for (const row of running) {
    const job = { ...workOfRow(row), progress: row.progress };
    out.set(row.id, runningEstimate(snapshot, { ...job, elapsedSec: elapsedOf(row, now) }));
  }
  if (waiting.length === 0) return out;
  const ahead = await readAhead(db, all, kix, waiting);
  for (const row of waiting) {
    const before = [...work.lapsed, ...(ahead.get(row.id) ?? [])];
    out.set(row.id, waitingEstimate(snapshot, workOfRow(row), before));
  }
  return out;
}

const elapsedOf = (row: EstimatedRow, now: Date) => secondsBetween(row.claimed_at, now);
