import type { RestoreJob } from "@kinora/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { followLine, refreshWithin } from "./job-steps.js";

const AT = "2026-11-01T12:00:00.000Z";
const job = (queue: RestoreJob["queue"], progress = 0): RestoreJob =>
  ({ id: "rj_1", status: "processing", progress, queue }) as RestoreJob;

describe("refreshWithin", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date(AT));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("asks the server again a second before its estimate runs out, never later than the follow's wait", () => {
    const now = Date.parse(AT);
    expect(refreshWithin(20, null)).toBe(20);
    expect(refreshWithin(20, now + 300_000)).toBe(20);
    expect(refreshWithin(20, now + 8_000)).toBe(7);
    // Run out already: at once (a second's long poll), so the countdown is re-based.
    expect(refreshWithin(20, now - 5_000)).toBe(1);
    // The first read answers at once, whatever the estimate.
    expect(refreshWithin(0, now + 8_000)).toBe(0);
  });
});

describe("followLine", () => {
  it("says a started restore waits for a worker, with its place and the server's estimate", () => {
    const queued = { state: "queued", position: 3, ahead: 2, eta_seconds: 200 } as const;
    expect(followLine(job({ ...queued, estimated_done_at: AT }))).toBe(
      "waiting for a worker (3rd in the queue, about 3m 20s left)",
    );
    const running = { state: "running", position: 0, ahead: 0, eta_seconds: 45 } as const;
    expect(followLine(job({ ...running, estimated_done_at: AT }, 0.4))).toBe(
      "processing (about 45s left)",
    );
  });
});
