/**
 * The metrics registry seam: the three instrument kinds kinora uses and the Prometheus text
 * rendering, shaped after prom-client (Counter.inc, Gauge.set, Histogram.observe, a `collect`
 * hook run at scrape time, `contentType`, `metrics()` as `render()`), so swapping the built-in
 * implementation (./text-registry.ts) for prom-client is one adapter module, not a rewrite.
 */

/** Label name → value. Values must come from small closed sets (never ids). */
export type Labels = Readonly<Record<string, string>>;

export interface Counter {
  inc(labels?: Labels, value?: number): void;
}

export interface Gauge {
  set(labels: Labels, value: number): void;
  /** Drops every series (before a collect sets the current ones). */
  reset(): void;
}

export interface Histogram {
  observe(labels: Labels, value: number): void;
}

export interface MetricSpec<M> {
  name: string;
  help: string;
  labelNames?: readonly string[];
  /** Runs before each render (scrape): read a value from the process or the database. */
  collect?: (metric: M) => void | Promise<void>;
}

export interface HistogramSpec extends MetricSpec<Histogram> {
  /** Upper bounds, ascending; +Inf is added. */
  buckets: readonly number[];
}

export interface MetricsRegistry {
  counter(spec: MetricSpec<Counter>): Counter;
  gauge(spec: MetricSpec<Gauge>): Gauge;
  histogram(spec: HistogramSpec): Histogram;
  /** The Content-Type of render()'s text. */
  readonly contentType: string;
  /** Runs every collect hook, then renders all metrics in the text exposition format. */
  render(): Promise<string>;
}
