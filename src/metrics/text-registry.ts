/**
 * A small in-process MetricsRegistry that renders the Prometheus text exposition format
 * (version 0.0.4): HELP/TYPE lines, escaped label values, cumulative histogram buckets with
 * _sum and _count. One per platform (no global registry), so test apps never share counters.
 */
import type { Histogram, HistogramSpec, Labels, MetricSpec, MetricsRegistry } from "./registry.js";

/** What every spec has, whatever its instrument. */
type SpecBase = Pick<MetricSpec<never>, "name" | "help" | "labelNames">;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface Series<V> {
  labels: Labels;
  value: V;
}

interface Metric {
  name: string;
  render(): string[];
  collect(): Promise<void>;
}

const escapeHelp = (s: string) => s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const escapeValue = (s: string) =>
  s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');

/** A number as Prometheus writes it. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Number.POSITIVE_INFINITY) return "+Inf";
  if (v === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(v);
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels);
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return "";
  return `{${pairs.map(([k, v]) => `${k}="${escapeValue(v)}"`).join(",")}}`;
}

/** Keeps label order fixed (the spec's labelNames) and refuses unknown or missing labels. */
function normalise(spec: SpecBase, labels: Labels = {}): { key: string; labels: Labels } {
  const names = spec.labelNames ?? [];
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = labels[name];
    if (value === undefined) throw new Error(`${spec.name}: label ${name} is missing`);
    out[name] = value;
  }
  for (const name of Object.keys(labels)) {
    if (!names.includes(name)) throw new Error(`${spec.name}: unknown label ${name}`);
  }
  return { key: JSON.stringify(names.map((n) => out[n])), labels: out };
}

function checkSpec(spec: SpecBase) {
  if (!NAME.test(spec.name)) throw new Error(`bad metric name ${spec.name}`);
  for (const l of spec.labelNames ?? []) {
    if (!LABEL.test(l) || l.startsWith("__")) throw new Error(`${spec.name}: bad label ${l}`);
  }
}

function header(spec: SpecBase, type: string): string[] {
  return [`# HELP ${spec.name} ${escapeHelp(spec.help)}`, `# TYPE ${spec.name} ${type}`];
}

function simple<M>(
  spec: MetricSpec<M>,
  type: "counter" | "gauge",
  make: (s: Map<string, Series<number>>) => M,
): Metric & { api: M } {
  checkSpec(spec);
  const series = new Map<string, Series<number>>();
  const api = make(series);
  return {
    name: spec.name,
    api,
    collect: async () => spec.collect?.(api),
    render: () => [
      ...header(spec, type),
      ...[...series.values()].map(
        (s) => `${spec.name}${labelText(s.labels)} ${formatValue(s.value)}`,
      ),
    ],
  };
}

function histogram(spec: HistogramSpec): Metric & { api: Histogram } {
  checkSpec(spec);
  const bounds = [...spec.buckets].sort((a, b) => a - b);
  const series = new Map<string, Series<{ counts: number[]; sum: number; count: number }>>();
  const api: Histogram = {
    observe(labels, value) {
      if (!Number.isFinite(value)) return;
      const n = normalise(spec, labels);
      let s = series.get(n.key);
      if (!s) {
        s = { labels: n.labels, value: { counts: bounds.map(() => 0), sum: 0, count: 0 } };
        series.set(n.key, s);
      }
      const i = bounds.findIndex((b) => value <= b);
      if (i >= 0) s.value.counts[i] = (s.value.counts[i] ?? 0) + 1;
      s.value.sum += value;
      s.value.count += 1;
    },
  };
  const renderSeries = (s: Series<{ counts: number[]; sum: number; count: number }>) => {
    let cumulative = 0;
    const lines = bounds.map((b, i) => {
      cumulative += s.value.counts[i] ?? 0;
      return `${spec.name}_bucket${labelText(s.labels, ["le", formatValue(b)])} ${cumulative}`;
    });
    lines.push(`${spec.name}_bucket${labelText(s.labels, ["le", "+Inf"])} ${s.value.count}`);
    lines.push(`${spec.name}_sum${labelText(s.labels)} ${formatValue(s.value.sum)}`);
    lines.push(`${spec.name}_count${labelText(s.labels)} ${s.value.count}`);
    return lines;
  };
  return {
    name: spec.name,
    api,
    collect: async () => spec.collect?.(api),
    render: () => [...header(spec, "histogram"), ...[...series.values()].flatMap(renderSeries)],
  };
}

/** A fresh registry with nothing in it. */
export function createTextRegistry(): MetricsRegistry {
  const metrics: Metric[] = [];
  const add = <M extends Metric>(m: M): M => {
    if (metrics.some((x) => x.name === m.name)) throw new Error(`metric ${m.name} exists`);
    metrics.push(m);
    return m;
  };
  return {
    contentType: "text/plain; version=0.0.4; charset=utf-8",
    counter: (spec) =>
      add(
        simple(spec, "counter", (series) => ({
          inc(labels, value = 1) {
            if (!(value >= 0)) throw new Error(`${spec.name}: a counter only goes up`);
            const n = normalise(spec, labels);
            const s = series.get(n.key);
            if (s) s.value += value;
            else series.set(n.key, { labels: n.labels, value });
          },
        })),
      ).api,
    gauge: (spec) =>
      add(
        simple(spec, "gauge", (series) => ({
          set(labels, value) {
            const n = normalise(spec, labels);
            series.set(n.key, { labels: n.labels, value });
          },
          reset: () => series.clear(),
        })),
      ).api,
    histogram: (spec) => add(histogram(spec)).api,
    async render() {
      for (const m of metrics) await m.collect();
      return `${metrics.flatMap((m) => m.render()).join("\n")}\n`;
    },
  };
}
