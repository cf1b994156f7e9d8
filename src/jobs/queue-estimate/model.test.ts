import { describe, expect, it } from "vitest";
import {
  predictedRunSec,
  type QueueSnapshot,
  remainingRunSec,
  runningEstimate,
  runRates,
  startDelaySec,
  waitingEstimate,
} from "./model.js";

const DEFAULTS = { fast: 1, slow: 4 };
const now = new Date("2026-11-01T12:00:00.000Z");

describe("runRates", () => {
  it("uses the defaults when nothing has run yet", () => {
    expect(runRates([], DEFAULTS)).toEqual(DEFAULTS);
  });

  it("measures a class as the ratio of its summed run time to its summed work", () => {
    const rates = runRates(
      [
        { workClass: "fast", amount: 10, runSec: 30 },
        { workClass: "fast", amount: 30, runSec: 50 },
      ],
      DEFAULTS,
    );
    expect(rates.fast).toBe(2);
  });

  it("scales the default of an unmeasured class by the deployment's measured speed", () => {
    // fast ran 3x slower than its default, so slow is assumed 3x slower than its default too.
    const rates = runRates([{ workClass: "fast", amount: 10, runSec: 30 }], DEFAULTS);
    expect(rates.slow).toBe(12);
  });

  it("ignores samples with no work or a negative run time", () => {
    const rates = runRates(
      [
        { workClass: "fast", amount: 0, runSec: 30 },
        { workClass: "fast", amount: 5, runSec: -1 },
      ],
      DEFAULTS,
    );
    expect(rates).toEqual(DEFAULTS);
  });
});

describe("predictedRunSec", () => {
  it("multiplies the class rate by the amount, and falls back to the slowest rate", () => {
    expect(predictedRunSec(DEFAULTS, "fast", 10)).toBe(10);
    expect(predictedRunSec(DEFAULTS, "unknown", 10)).toBe(40);
  });
});

describe("remainingRunSec", () => {
  it("is the prediction less the elapsed time before progress is meaningful", () => {
    expect(remainingRunSec(100, 30, null)).toBe(70);
    expect(remainingRunSec(100, 30, 0.01)).toBe(70);
  });

  it("never reaches zero for a job running past its prediction", () => {
    expect(remainingRunSec(100, 500, 0)).toBe(10);
  });

  it("trusts extrapolated progress fully from half way", () => {
    // 60 s for 75 %: 20 s to go, whatever the prediction said.
    expect(remainingRunSec(1000, 60, 0.75)).toBeCloseTo(20);
  });

  it("blends prediction and progress in between", () => {
    // On track: both say 75 s.
    expect(remainingRunSec(100, 25, 0.25)).toBeCloseTo(75);
    // Twice as fast as predicted: between the prediction (90) and the extrapolation (30).
    const r = remainingRunSec(100, 10, 0.25);
    expect(r).toBeGreaterThan(30);
    expect(r).toBeLessThan(90);
  });
});

describe("startDelaySec", () => {
  it("starts at once on an idle worker", () => {
    expect(startDelaySec([50], 2, 0)).toBe(0);
  });

  it("waits for the earliest worker to come free", () => {
    expect(startDelaySec([50, 20], 2, 0)).toBe(20);
  });

  it("pours the work ahead onto the workers evenly", () => {
    // 30 s of work: 20 s fills the idle worker up to the busy one, then 5 s each.
    expect(startDelaySec([20], 2, 30)).toBe(25);
    expect(startDelaySec([], 1, 30)).toBe(30);
  });

  it("counts at least one worker, and every running job as one", () => {
    expect(startDelaySec([], 0, 10)).toBe(10);
    expect(startDelaySec([10, 10, 10], 1, 0)).toBe(10);
  });
});

describe("estimates", () => {
  const snapshot: QueueSnapshot = { now, rates: DEFAULTS, running: [], workers: 1 };

  it("puts the next job at position 1 with its own run time", () => {
    const e = waitingEstimate(snapshot, { workClass: "fast", amount: 10 }, {});
    expect(e).toEqual({
      position: 1,
      ahead: 0,
      eta_seconds: 10,
      estimated_done_at: "2026-11-01T12:00:10.000Z",
    });
  });

  it("adds the work ahead and the busy workers' remaining time", () => {
    const busy = {
      ...snapshot,
      running: [{ workClass: "slow", amount: 5, elapsedSec: 5, progress: null }],
    };
    const e = waitingEstimate(
      busy,
      { workClass: "fast", amount: 10 },
      { fast: { count: 2, amount: 20 }, slow: { count: 1, amount: 5 } },
    );
    // 15 s left on the running job + 20 + 20 ahead + 10 own.
    expect(e).toMatchObject({ position: 4, ahead: 3, eta_seconds: 65 });
  });

  it("shares the queue between workers", () => {
    const e = waitingEstimate(
      { ...snapshot, workers: 2 },
      { workClass: "fast", amount: 10 },
      { fast: { count: 2, amount: 20 } },
    );
    expect(e.eta_seconds).toBe(20);
  });

  it("gives a running job position 0 and its remaining time, at least a second", () => {
    const running = { workClass: "fast", amount: 100, elapsedSec: 60, progress: 0.75 };
    expect(runningEstimate(snapshot, running)).toMatchObject({
      position: 0,
      ahead: 0,
      eta_seconds: 20,
    });
    expect(runningEstimate(snapshot, { ...running, progress: 1 }).eta_seconds).toBe(1);
  });
});
