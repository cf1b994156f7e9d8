/**
 * This process's own figures (each API node reports its own), named as prom-client's default
 * metrics name them so dashboards keep working when prom-client's collector replaces this.
 */
import type { MetricsRegistry } from "./registry.js";

export function registerProcessMetrics(registry: MetricsRegistry): void {
  const startSec = Math.round((Date.now() - process.uptime() * 1000) / 1000);
  registry.gauge({
    name: "process_start_time_seconds",
    help: "Start time of the process since the Unix epoch, in seconds.",
    collect: (g) => g.set({}, startSec),
  });
  let reportedCpuSec = 0;
  registry.counter({
    name: "process_cpu_seconds_total",
    help: "User and system CPU time spent, in seconds.",
    collect: (c) => {
      const { user, system } = process.cpuUsage();
      const total = (user + system) / 1e6;
      c.inc({}, Math.max(0, total - reportedCpuSec));
      reportedCpuSec = Math.max(reportedCpuSec, total);
    },
  });
  registry.gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory size, in bytes.",
    collect: (g) => g.set({}, process.memoryUsage().rss),
  });
  registry.gauge({
    name: "nodejs_heap_size_used_bytes",
    help: "Process heap size used by V8, in bytes.",
    collect: (g) => g.set({}, process.memoryUsage().heapUsed),
  });
}
