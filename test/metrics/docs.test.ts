/**
 * The operator files parse, and every metric they query is one kinora serves — so a renamed
 * metric cannot silently empty a dashboard panel or disarm an alert.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { registerKinoraMetrics } from "../../src/metrics/kinora-metrics.js";
import { createPromRegistry } from "../../src/metrics/prom-registry.js";

const docs = path.resolve(import.meta.dirname, "../../docs");

async function servedMetrics(): Promise<Map<string, string>> {
  const registry = createPromRegistry();
  registerKinoraMetrics(registry, { readJobs: async () => ({ byStatus: [], queues: [] }) });
  const text = await registry.render();
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1] ?? "", m[2] ?? ""]));
}

/** Metric names an expression reads; histogram series resolve to their histogram. */
function metricsIn(expr: string, served: Map<string, string>): string[] {
  const names = expr.match(/\b(kinora|process|nodejs)_[a-z_]+\b/g) ?? [];
  return names.map((n) => {
    const base = n.replace(/_(bucket|sum|count)$/, "");
    return served.get(base) === "histogram" ? base : n;
  });
}

describe("docs/prometheus/alerts.yml", () => {
  it("is a valid rule file whose expressions read served metrics", async () => {
    const served = await servedMetrics();
    const file = parse(await readFile(path.join(docs, "prometheus/alerts.yml"), "utf8"));
    const rules = file.groups.flatMap((g: { rules: unknown[] }) => g.rules);
    expect(rules.length).toBeGreaterThanOrEqual(6);
    const alerts = rules.map((r: { alert: string }) => r.alert);
    for (const name of ["KinoraReconcileDrift", "KinoraQueueWaitTooLong", "Kinora5xxRateHigh"]) {
      expect(alerts).toContain(name);
    }
    for (const rule of rules) {
      expect(typeof rule.expr, rule.alert).toBe("string");
      expect(["critical", "warning"]).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
      const used = metricsIn(rule.expr, served);
      expect(used.length, rule.alert).toBeGreaterThan(0);
      for (const m of used) expect(served.has(m), `${rule.alert}: ${m}`).toBe(true);
    }
  });
});

describe("docs/grafana/kinora.json", () => {
  it("is dashboard JSON whose panels read served metrics", async () => {
    const served = await servedMetrics();
    const dash = JSON.parse(await readFile(path.join(docs, "grafana/kinora.json"), "utf8"));
    const panels = dash.panels.filter((p: { type: string }) => p.type !== "row");
    expect(panels.length).toBeGreaterThanOrEqual(12);
    const ids = new Set(dash.panels.map((p: { id: number }) => p.id));
    expect(ids.size).toBe(dash.panels.length);
    const queried = new Set<string>();
    for (const panel of panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets) {
        for (const m of metricsIn(target.expr, served)) {
          expect(served.has(m), `${panel.title}: ${m}`).toBe(true);
          queried.add(m);
        }
      }
    }
    // Every kinora metric has a panel.
    for (const name of served.keys()) {
      if (name.startsWith("kinora_")) expect(queried, name).toContain(name);
    }
  });
});

describe("docs/operations.md", () => {
  it("explains every kinora metric under ## Metrics and has an ## Alerts section", async () => {
    const text = await readFile(path.join(docs, "operations.md"), "utf8");
    expect(text).toMatch(/^## Metrics$/m);
    expect(text).toMatch(/^## Alerts$/m);
    // kinora's own metrics one by one; prom-client's process_*/nodejs_* defaults as a family.
    for (const name of (await servedMetrics()).keys()) {
      if (name.startsWith("kinora_")) expect(text, name).toContain(`\`${name}\``);
    }
    expect(text).toMatch(/prom-client/);
  });
});
