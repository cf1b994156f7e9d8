/**
 * kinora's metrics on a MetricsRegistry: the instruments, and the observer that turns the
 * events services report (src/domain/events.ts) into counts and histograms. What each metric
 * means is in docs/operations.md; keep the two in step.
 */
import type { KinoraObserver } from "../domain/events.js";
import type { MetricsRegistry } from "./registry.js";

/** What the scrape-time collector reads from the database (cluster-wide figures). */
interface JobSnapshot {
  byStatus: { kind: string; status: string; count: number }[];
  queues: { kind: string; depth: number; oldestWaitMs: number }[];
}

interface KinoraMetricsOptions {
  /** Reads the job figures at scrape time; a failure sets kinora_metrics_db_up to 0. */
  readJobs: () => Promise<JobSnapshot>;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const WAIT_BUCKETS = [0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200];
const RUN_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400];

/** The job kind of a segmented restore's work units (src/kinds/restore-segments). */
const SEGMENT_KIND = "restoreseg";

/** Defines every kinora metric on `registry` and returns the observer that feeds them. */
export function registerKinoraMetrics(
  registry: MetricsRegistry,
  opts: KinoraMetricsOptions,
): KinoraObserver {
  registerJobGauges(registry, opts);
  return {
    ...httpObserver(registry),
    ...moneyObserver(registry),
    ...jobObserver(registry),
    ...uploadObserver(registry),
  };
}

function uploadObserver(r: MetricsRegistry): KinoraObserver {
  const ended = r.counter({
    name: "kinora_uploads_in_parts_total",
    help: "Uploads in parts that ended on this node, by outcome (completed, aborted) and why an aborted one was (expired, job_ended, cancelled, failed).",
    labelNames: ["outcome", "reason"],
  });
  const discarded = r.counter({
    name: "kinora_upload_parts_discarded_total",
    help: "Parts of aborted uploads deleted by this node (what had arrived), by reason.",
    labelNames: ["reason"],
  });
  const discardedBytes = r.counter({
    name: "kinora_upload_parts_discarded_bytes_total",
    help: "Bytes of the parts of aborted uploads deleted by this node, by reason.",
    labelNames: ["reason"],
  });
  return {
    uploadInPartsEnded(e) {
      const reason = e.reason ?? "";
      ended.inc({ outcome: e.outcome, reason });
      if (e.outcome !== "aborted") return;
      discarded.inc({ reason }, e.parts);
      discardedBytes.inc({ reason }, e.bytes);
    },
  };
}

function httpObserver(r: MetricsRegistry): KinoraObserver {
  const labelNames = ["route", "method", "status"];
  const requests = r.counter({
    name: "kinora_http_requests_total",
    help: "HTTP requests answered by this node, by route pattern, method and status.",
    labelNames,
  });
  const latency = r.histogram({
    name: "kinora_http_request_duration_seconds",
    help: "Time to answer an HTTP request on this node, in seconds (streamed uploads included).",
    labelNames,
    buckets: LATENCY_BUCKETS,
  });
  const limited = r.counter({
    name: "kinora_rate_limited_total",
    help: "Requests refused with 429 by this node, by rate rule.",
    labelNames: ["rule"],
  });
  return {
    httpRequest(e) {
      const labels = { route: e.route, method: e.method, status: String(e.status) };
      requests.inc(labels);
      latency.observe(labels, e.durationMs / 1000);
    },
    rateLimited: (e) => limited.inc({ rule: e.rule }),
  };
}

function moneyObserver(r: MetricsRegistry): KinoraObserver {
  const entries = r.counter({
    name: "kinora_ledger_entries_total",
    help: "Ledger entries written through this node, by kind (charge, refund, topup, adjustment, payout).",
    labelNames: ["kind"],
  });
  const cents = r.counter({
    name: "kinora_ledger_cents_total",
    help: "Cents moved by ledger entries written through this node, by kind and direction (in: to balances, out: from balances).",
    labelNames: ["kind", "direction"],
  });
  const payments = r.counter({
    name: "kinora_payment_outcomes_total",
    help: "Payments that reached an outcome on this node, by provider (stripe, test, usdc) and outcome.",
    labelNames: ["provider", "outcome"],
  });
  const driftItems = r.gauge({
    name: "kinora_reconcile_drift_items",
    help: "Invariants that did not hold in the last GET /admin/reconcile served by this node.",
  });
  const lastRun = r.gauge({
    name: "kinora_reconcile_last_run_timestamp_seconds",
    help: "When this node last served GET /admin/reconcile (Unix seconds).",
  });
  return {
    ledgerEntry(e) {
      entries.inc({ kind: e.kind });
      const direction = e.amountCents >= 0 ? "in" : "out";
      cents.inc({ kind: e.kind, direction }, Math.abs(e.amountCents));
    },
    paymentOutcome: (e) => payments.inc({ provider: e.provider, outcome: e.outcome }),
    reconciled(e) {
      driftItems.set({}, e.driftItems);
      lastRun.set({}, Math.floor(e.atMs / 1000));
    },
  };
}

function jobObserver(r: MetricsRegistry): KinoraObserver {
  const wait = r.histogram({
    name: "kinora_job_queue_wait_seconds",
    help: "Time from queued to the first claim by a worker, in seconds, by job kind.",
    labelNames: ["kind"],
    buckets: WAIT_BUCKETS,
  });
  const run = r.histogram({
    name: "kinora_job_run_seconds",
    help: "Time from the first claim to the end (retries included), in seconds, by kind, variant (restore quality or clip size) and end status.",
    labelNames: ["kind", "variant", "status"],
    buckets: RUN_BUCKETS,
  });
  const retries = r.counter({
    name: "kinora_job_retries_total",
    help: "Jobs put back in the queue for another attempt, by kind and reason (failed, lapsed).",
    labelNames: ["kind", "reason"],
  });
  const lapsed = r.counter({
    name: "kinora_job_leases_lapsed_total",
    help: "Worker leases that lapsed (no heartbeat), by kind and what became of the job (requeued, failed).",
    labelNames: ["kind", "outcome"],
  });
  const segments = segmentMetrics(r);
  return {
    restoreSegmentsQueued: (e) => segments.total.inc({ state: "queued" }, e.count),
    jobClaimed(e) {
      if (e.kind === SEGMENT_KIND) segments.total.inc({ state: "running" });
      if (e.waitMs !== null) wait.observe({ kind: e.kind }, e.waitMs / 1000);
    },
    jobFinished(e) {
      if (e.kind === SEGMENT_KIND) segments.finished(e.status, e.variant, e.runMs);
      if (e.runMs === null) return;
      run.observe({ kind: e.kind, variant: e.variant, status: e.status }, e.runMs / 1000);
    },
    jobRetried(e) {
      if (e.kind === SEGMENT_KIND) segments.total.inc({ state: "retried" });
      retries.inc({ kind: e.kind, reason: e.reason });
    },
    leaseLapsed: (e) => lapsed.inc({ kind: e.kind, outcome: e.outcome }),
  };
}

/**
 * A segmented restore's work units (segments, the sound, the join): how many were queued,
 * claimed (running), put back for another attempt (retried), and ended done or failed; and
 * their seconds from first claim to end, by quality.
 */
function segmentMetrics(r: MetricsRegistry) {
  const total = r.counter({
    name: "kinora_restore_segments_total",
    help: "Work units of segmented restores (segments, the sound, the join) on this node, by state: queued, running (claimed), retried, done, failed.",
    labelNames: ["state"],
  });
  const seconds = r.histogram({
    name: "kinora_restore_segment_seconds",
    help: "Seconds from a segmented restore's work unit's first claim to its end (retries included), by quality and end status (done, failed).",
    labelNames: ["quality", "status"],
    buckets: RUN_BUCKETS,
  });
  return {
    total,
    finished(status: string, quality: string, runMs: number | null) {
      if (status !== "done" && status !== "failed") return;
      total.inc({ state: status });
      if (runMs !== null) seconds.observe({ quality, status }, runMs / 1000);
    },
  };
}

/** Gauges read from the database once per scrape (one read shared by all of them). */
function registerJobGauges(r: MetricsRegistry, opts: KinoraMetricsOptions) {
  let snapshot: JobSnapshot | undefined;
  // One database read per scrape, shared by the gauges below.
  r.onScrape(async () => {
    snapshot = await opts.readJobs().catch(() => undefined);
  });
  r.gauge({
    name: "kinora_metrics_db_up",
    help: "1 when this scrape could read the job figures from the database, else 0.",
    collect: (g) => g.set({}, snapshot ? 1 : 0),
  });
  r.gauge({
    name: "kinora_jobs",
    help: "Unfinished jobs in the whole cluster, by kind and status (read from the database).",
    labelNames: ["kind", "status"],
    collect: (g) => {
      g.reset();
      for (const s of snapshot?.byStatus ?? []) g.set({ kind: s.kind, status: s.status }, s.count);
    },
  });
  r.gauge({
    name: "kinora_job_queue_depth",
    help: "Jobs waiting for a worker in the whole cluster, by kind (read from the database).",
    labelNames: ["kind"],
    collect: (g) => {
      g.reset();
      for (const q of snapshot?.queues ?? []) g.set({ kind: q.kind }, q.depth);
    },
  });
  r.gauge({
    name: "kinora_job_queue_oldest_wait_seconds",
    help: "How long the oldest waiting job has waited, in seconds, by kind (0 when none waits).",
    labelNames: ["kind"],
    collect: (g) => {
      g.reset();
      for (const q of snapshot?.queues ?? []) g.set({ kind: q.kind }, q.oldestWaitMs / 1000);
    },
  });
}
