/**
 * Metrics as a Feature: a registry per platform, fed by the platform's event hub (requests,
 * 429s, ledger entries, payments, jobs) and by scrape-time reads of the job tables, served at
 * GET /metrics. This is the one place that knows which metrics library is used; services only
 * emit events.
 */
import { CLIP_FINAL, CLIP_MOVES } from "../domain/clips/transitions.js";
import type { Move } from "../domain/jobs/moves.js";
import { RESTORE_FINAL, RESTORE_MOVES } from "../domain/restore/transitions.js";
import { registerMetricsRoute } from "../http/routes/metrics.js";
import { clipJobs } from "../jobs/clip.js";
import { restoreJobs } from "../jobs/restore.js";
import { metricsConfig } from "../metrics/config.js";
import { registerKinoraMetrics } from "../metrics/kinora-metrics.js";
import { createPromRegistry } from "../metrics/prom-registry.js";
import type { MetricsRegistry } from "../metrics/registry.js";
import type { FeatureFactory } from "../platform.js";
import { type JobTableSpec, readJobStats } from "../services/job-stats.js";

export interface MetricsFeatureOptions {
  /** The registry implementation (default: prom-client with its process metrics). */
  registry?: () => MetricsRegistry;
}

/** Statuses a job still moves through: every status its moves name, minus the final ones. */
function activeStatuses(moves: Record<string, Move<string> | undefined>, final: readonly string[]) {
  const all = new Set<string>();
  for (const m of Object.values(moves)) {
    if (!m) continue;
    for (const s of [...m.from, m.to]) all.add(s);
  }
  return [...all].filter((s) => !final.includes(s)).sort();
}

export const JOB_TABLES: readonly JobTableSpec[] = [
  {
    kind: restoreJobs.kind,
    table: restoreJobs.table,
    waiting: restoreJobs.waiting,
    active: activeStatuses(RESTORE_MOVES, RESTORE_FINAL),
  },
  {
    kind: clipJobs.kind,
    table: clipJobs.table,
    waiting: clipJobs.waiting,
    active: activeStatuses(CLIP_MOVES, CLIP_FINAL),
  },
];

export function metricsFeature(opts: MetricsFeatureOptions = {}): FeatureFactory {
  return (p) => {
    const cfg = metricsConfig(p.config.env);
    const registry = (opts.registry ?? createPromRegistry)();
    if (cfg.enabled) {
      const observer = registerKinoraMetrics(registry, {
        readJobs: () => readJobStats(p.db, JOB_TABLES, p.clock()),
      });
      p.events.subscribe(observer);
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
