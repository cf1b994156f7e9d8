import { describe, expect, it } from "vitest";
import { registerKinoraMetrics } from "./kinora-metrics.js";
import { createPromRegistry } from "./prom-registry.js";

describe("kinora_restore_segments_total and kinora_restore_segment_seconds", () => {
  it("count a segmented restore's units by state from the engine's events, and only theirs", async () => {
    const r = createPromRegistry({ processMetrics: false });
    const events = registerKinoraMetrics(r, {
      readJobs: async () => ({ byStatus: [], queues: [] }),
    });
    events.restoreSegmentsQueued?.({ count: 5 });
    for (let i = 0; i < 6; i++) events.jobClaimed?.({ kind: "restoreseg", waitMs: 10 });
    events.jobClaimed?.({ kind: "restore", waitMs: 10 });
    events.jobRetried?.({ kind: "restoreseg", reason: "lapsed" });
    events.jobRetried?.({ kind: "clip", reason: "failed" });
    const done = { kind: "restoreseg", status: "done", variant: "enhanced" };
    for (let i = 0; i < 4; i++) events.jobFinished?.({ ...done, runMs: 30_000 });
    events.jobFinished?.({ ...done, status: "failed", runMs: 200_000 });
    events.jobFinished?.({ kind: "restore", status: "done", variant: "enhanced", runMs: 1 });
    const text = await r.render();
    const count = (state: string) =>
      Number(
        new RegExp(`kinora_restore_segments_total\\{state="${state}"\\} (\\d+)`).exec(text)?.[1],
      );
    expect([count("queued"), count("running"), count("retried")]).toEqual([5, 6, 1]);
    expect([count("done"), count("failed")]).toEqual([4, 1]);
    expect(text).toMatch(
      /kinora_restore_segment_seconds_count\{quality="enhanced",status="done"\} 4/,
    );
    expect(text).toMatch(
      /kinora_restore_segment_seconds_bucket\{le="300",quality="enhanced",status="failed"\} 1/,
    );
  });
});
