/**
 * The metrics registry seam: the three instrument kinds kinora uses and the Prometheus text
 * rendering (Counter.inc, Gauge.set, Histogram.observe, a `collect` hook run at scrape time).
 * kinora-metrics.ts declares its metrics against this, not prom-client itself, so the one
 * implementation (./prom-registry.ts, on prom-client) stays swappable and tests can fake it.
 */

/** Label name → value. Values must come from small closed sets (never ids). */
type Labels = Readonly<Record<string, string>>;

/** A count that only goes up. */
export interface Counter {
  inc(labels?: Labels, value?: number): void;
}

/** A value set at each collect. */
export interface Gauge {
  set(labels: Labels, value: number): void;
  /** Drops every series (before a collect sets the current ones). */
  reset(): void;
}

/** Observed values counted into buckets. */
export interface Histogram {
  observe(labels: Labels, value: number): void;
}

/** A metric's name, help text and label names. */
export interface MetricSpec<M> {
  name: string;
  help: string;
  labelNames?: readonly string[];
  /** Runs before each render (scrape): read a value from the process or the database. */
  collect?: (metric: M) => void | Promise<void>;
}

/** A histogram's spec with its bucket bounds. */
export interface HistogramSpec extends MetricSpec<Histogram> {
  /** Upper bounds, ascending; +Inf is added. */
  buckets: readonly number[];
}

/** Where metrics are declared and scraped, whatever library backs it. */
export interface MetricsRegistry {
  counter(spec: MetricSpec<Counter>): Counter;
  gauge(spec: MetricSpec<Gauge>): Gauge;
  histogram(spec: HistogramSpec): Histogram;
  /**
   * Runs before every render, before any metric's collect hook: for a read that several metrics
   * share (prom-client collects metrics concurrently, so one collect cannot feed another).
   */
  onScrape(hook: () => Promise<void>): void;
  /** The Content-Type of render()'s text. */
  readonly contentType: string;
  /** Runs the scrape hooks, every collect hook, then renders the text exposition format. */
  render(): Promise<string>;
}
