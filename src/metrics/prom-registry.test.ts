import { describe, expect, it } from "vitest";
import { createPromRegistry } from "./prom-registry.js";

describe("the prom-client registry", () => {
  it("renders counters, gauges (collected at scrape time) and histograms with their labels", async () => {
    const r = createPromRegistry({ processMetrics: false });
    const c = r.counter({ name: "t_things_total", help: "Things.", labelNames: ["kind"] });
    c.inc({ kind: "a" });
    c.inc({ kind: "a" }, 2);
    let depth = 7;
    r.gauge({
      name: "t_depth",
      help: "Depth.",
      labelNames: ["kind"],
      collect: (g) => {
        g.reset();
        g.set({ kind: "b" }, depth);
      },
    });
    const h = r.histogram({ name: "t_seconds", help: "Time.", buckets: [1, 5] });
    h.observe({}, 3);
    let text = await r.render();
    expect(text).toContain('t_things_total{kind="a"} 3');
    expect(text).toContain('t_depth{kind="b"} 7');
    expect(text).toContain('t_seconds_bucket{le="1"} 0');
    expect(text).toContain('t_seconds_bucket{le="5"} 1');
    expect(text).toContain("t_seconds_count 1");
    depth = 2;
    text = await r.render();
    expect(text).toContain('t_depth{kind="b"} 2');
    expect(r.contentType).toMatch(/^text\/plain/);
  });

  it("keeps registries apart and adds prom-client's process metrics by default", async () => {
    const a = createPromRegistry();
    const b = createPromRegistry();
    a.counter({ name: "t_only_in_a_total", help: "A." }).inc();
    expect(await b.render()).not.toContain("t_only_in_a_total");
    expect(await a.render()).toMatch(/^process_cpu_seconds_total /m);
  });
});
