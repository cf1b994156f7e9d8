import { describe, expect, it } from "vitest";
import { createTextRegistry } from "./text-registry.js";

describe("text registry", () => {
  it("renders counters and gauges with HELP, TYPE and escaped label values", async () => {
    const r = createTextRegistry();
    const c = r.counter({ name: "x_total", help: "Things.\nMore", labelNames: ["a"] });
    c.inc({ a: 'q"uo\\te' });
    c.inc({ a: 'q"uo\\te' }, 2);
    r.gauge({ name: "g", help: "A gauge.", collect: (g) => g.set({}, 1.5) });
    expect(await r.render()).toBe(
      [
        "# HELP x_total Things.\\nMore",
        "# TYPE x_total counter",
        'x_total{a="q\\"uo\\\\te"} 3',
        "# HELP g A gauge.",
        "# TYPE g gauge",
        "g 1.5",
        "",
      ].join("\n"),
    );
  });

  it("renders cumulative histogram buckets with +Inf, _sum and _count", async () => {
    const r = createTextRegistry();
    const h = r.histogram({ name: "h_seconds", help: "H.", labelNames: ["k"], buckets: [1, 5] });
    for (const v of [0.5, 3, 3, 9]) h.observe({ k: "a" }, v);
    const text = await r.render();
    expect(text).toContain('h_seconds_bucket{k="a",le="1"} 1');
    expect(text).toContain('h_seconds_bucket{k="a",le="5"} 3');
    expect(text).toContain('h_seconds_bucket{k="a",le="+Inf"} 4');
    expect(text).toContain('h_seconds_sum{k="a"} 15.5');
    expect(text).toContain('h_seconds_count{k="a"} 4');
  });

  it("refuses unknown labels, a missing label, a decreasing counter and a duplicate name", () => {
    const r = createTextRegistry();
    const c = r.counter({ name: "c_total", help: "C.", labelNames: ["a"] });
    expect(() => c.inc({ b: "x" } as never)).toThrow(/label a is missing/);
    expect(() => c.inc({ a: "x", b: "y" })).toThrow(/unknown label b/);
    expect(() => c.inc({ a: "x" }, -1)).toThrow(/only goes up/);
    expect(() => r.gauge({ name: "c_total", help: "again" })).toThrow(/exists/);
    expect(() => r.gauge({ name: "bad-name", help: "x" })).toThrow(/bad metric name/);
  });
});
