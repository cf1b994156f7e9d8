/**
 * Metrics as a Feature: a registry per platform, fed by the platform's event hub (requests,
 * 429s, ledger entries, payments, jobs) and by scrape-time reads of the job tables, served at
 * GET /metrics. This is the one place that knows which metrics library is used; services only
 * emit events.
 */
import type { Move } from "../domain/job-lifecycle/moves.js";
import type { FeatureFactory } from "../feature.js";
import { registerMetricsRoute } from "../http/routes/metrics.js";
import type { JobDefinition } from "../jobs/definition.js";
import { metricsConfig } from "../metrics/config.js";
import { registerKinoraMetrics } from "../metrics/kinora-metrics.js";
import { createPromRegistry } from "../metrics/prom-registry.js";
import type { MetricsRegistry } from "../metrics/registry.js";
import { registerWebhookMetrics } from "../metrics/webhook-metrics.js";
import { type JobTableSpec, readJobStats } from "../services/job-stats.js";
import { readWebhookStats } from "../services/webhooks/stats.js";

type KindDefinition = Pick<JobDefinition, "kind" | "table" | "waiting" | "moves" | "final">;

interface MetricsFeatureOptions {
  /** The registry implementation (default: prom-client with its process metrics). */
  registry?: () => MetricsRegistry;
  /**
   * The job kinds whose tables are read at scrape time (default: the kinds whose queues this
   * server serves, as each kind's feature registered its queue on the platform).
   */
  kinds?: readonly KindDefinition[];
}

/** Statuses a job still moves through: every status its moves name, minus the final ones. */
function activeStatuses(def: KindDefinition) {
  const all = new Set<string>();
  for (const m of Object.values<Move<string> | undefined>(def.moves)) {
    if (!m) continue;
    for (const s of [...m.from, m.to]) all.add(s);
  }
  return [...all].filter((s) => !def.final.includes(s)).sort();
}

/** What the scrape reads of each kind: its table, waiting status and unfinished statuses. */
function jobTables(kinds: readonly KindDefinition[]): JobTableSpec[] {
  return kinds.map((def) => ({
    kind: def.kind,
    table: def.table,
    waiting: def.waiting,
    active: activeStatuses(def),
  }));
}

/** Prometheus metrics at /metrics (when switched on). */
export function metricsFeature(opts: MetricsFeatureOptions = {}): FeatureFactory {
  return (p) => {
    const cfg = metricsConfig(p.config.env);
    const registry = (opts.registry ?? createPromRegistry)();
    if (cfg.enabled) {
      const kinds = () => opts.kinds ?? p.jobKinds.all();
      const observer = registerKinoraMetrics(registry, {
        readJobs: () => readJobStats(p.db, jobTables(kinds()), p.clock()),
      });
      p.events.subscribe(observer);
      p.events.subscribe(registerWebhookMetrics(registry, () => readWebhookStats(p.db)));
    }
    const tokens = [cfg.token, p.adminToken].filter((t): t is string => Boolean(t));
    return {
      name: "metrics",
      routes: (app) =>
        registerMetricsRoute(app, {
          render: () => registry.render(),
          contentType: registry.contentType,
          tokens,
          enabled: cfg.enabled,
        }),
    };
  };
}
