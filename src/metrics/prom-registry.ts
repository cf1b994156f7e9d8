/**
 * The metrics registry on prom-client: one Registry per process (never prom-client's global
 * one, so tests and several apps in one process do not share series), with prom-client's
 * default process and Node.js metrics (CPU, memory, event-loop lag, GC, handles).
 */
import {
  collectDefaultMetrics,
  Counter as PromCounter,
  Gauge as PromGauge,
  Histogram as PromHistogram,
  Registry,
} from "prom-client";
import type {
  Counter,
  Gauge,
  Histogram,
  HistogramSpec,
  MetricSpec,
  MetricsRegistry,
} from "./registry.js";

/** A MetricsRegistry backed by prom-client, with process metrics if asked. */
export function createPromRegistry(opts: { processMetrics?: boolean } = {}): MetricsRegistry {
  const registry = new Registry();
  const scrapeHooks: (() => Promise<void>)[] = [];
  if (opts.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const base = <M>(spec: MetricSpec<M>, self: () => M) => ({
    name: spec.name,
    help: spec.help,
    labelNames: [...(spec.labelNames ?? [])],
    registers: [registry],
    ...(spec.collect ? { collect: async () => void (await spec.collect?.(self())) } : {}),
  });
  return {
    counter(spec) {
      const wrapped: Counter = {
        inc: (labels, value = 1) => metric.inc(labels ?? {}, value),
      };
      const metric: PromCounter = new PromCounter(base(spec, () => wrapped));
      return wrapped;
    },
    gauge(spec) {
      const wrapped: Gauge = {
        set: (labels, value) => metric.set(labels, value),
        reset: () => metric.reset(),
      };
      const metric: PromGauge = new PromGauge(base(spec, () => wrapped));
      return wrapped;
    },
    histogram(spec: HistogramSpec) {
      const wrapped: Histogram = { observe: (labels, value) => metric.observe(labels, value) };
      const metric: PromHistogram = new PromHistogram({
        ...base(spec, () => wrapped),
        buckets: [...spec.buckets],
      });
      return wrapped;
    },
    onScrape: (hook) => void scrapeHooks.push(hook),
    contentType: registry.contentType,
    async render() {
      for (const hook of scrapeHooks) await hook();
      return registry.metrics();
    },
  };
}
