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
  const rates = { restore: DEFAULTS, clip: { "480p": 2 } };
  it("multiplies the class rate by the amount, and falls back to the slowest rate", () => {
    expect(predictedRunSec(rates, { kind: "restore", workClass: "fast", amount: 10 })).toBe(10);
    expect(predictedRunSec(rates, { kind: "restore", workClass: "unknown", amount: 10 })).toBe(40);
    expect(predictedRunSec(rates, { kind: "clip", workClass: "480p", amount: 5 })).toBe(10);
    expect(predictedRunSec(rates, { kind: "echo", workClass: "x", amount: 1 })).toBe(4);
  });
});

describe("remainingRunSec", () => {
  it("is the prediction less the elapsed time before progress is meaningful", () => {
    expect(remainingRunSec(100, 30, null)).toBe(70);
    expect(remainingRunSec(100, 30, 0.01)).toBe(70);
  });

  it("keeps a quarter of the prediction for a job running past it with nothing reported", () => {
    expect(remainingRunSec(100, 500, 0)).toBe(25);
    expect(remainingRunSec(100, 5000, null)).toBe(25);
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

  it("does not take a pace from a plateau of progress (phases): no tenfold leap", () => {
    // Predicted 4 s; its analysis holds progress at 7 % for 8 s. A pace from the plateau would
    // say 100 s to go; the estimate stays near what the rate and the time spent say.
    const plateau = [2, 4, 6, 8].map((t) => remainingRunSec(4, t, 0.07));
    expect(Math.max(...plateau)).toBeLessThan(10);
    // From half way the job's own pace decides: 9 s done at 50 %, 9 s to go.
    expect(remainingRunSec(4, 9, 0.5)).toBeCloseTo(9);
  });

  it("counts down with the clock for a job that runs as predicted: no jumps", () => {
    // A 200 s job reporting progress linearly: each read, a second later, says about a second
    // less — the done time it gives stays put.
    const doneAt = [] as number[];
    for (let t = 0; t <= 190; t += 1) {
      doneAt.push(t + remainingRunSec(200, t, t / 200));
    }
    expect(Math.max(...doneAt) - Math.min(...doneAt)).toBeLessThan(1e-6);
  });

  it("moves the done time smoothly for a job slower than predicted (no leap between reads)", () => {
    // Predicted 60 s, really takes 180 s: progress 1/180 per second.
    let last = remainingRunSec(60, 0, 0);
    for (let t = 1; t < 180; t += 1) {
      const now = remainingRunSec(60, t, t / 180);
      // From one second to the next the estimate never leaps by more than a few seconds.
      expect(Math.abs(t + now - (t - 1 + last))).toBeLessThan(8);
      last = now;
    }
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
  const rates = { restore: DEFAULTS, clip: { "480p": 2 } };
  const snapshot: QueueSnapshot = { now, rates, running: [], workers: 1 };
  const fast = { kind: "restore", workClass: "fast", amount: 10 };

  it("puts the next job at position 1 with its own run time, queued", () => {
    expect(waitingEstimate(snapshot, fast, [])).toEqual({
      state: "queued",
      position: 1,
      ahead: 0,
      eta_seconds: 10,
      estimated_done_at: "2026-11-01T12:00:10.000Z",
    });
  });

  it("adds the work ahead and the busy workers' remaining time, whatever their kind", () => {
    const busy = {
      ...snapshot,
      running: [{ kind: "clip", workClass: "480p", amount: 5, elapsedSec: 2, progress: null }],
    };
    const e = waitingEstimate(busy, fast, [
      { kind: "restore", workClass: "fast", count: 2, amount: 20 },
      { kind: "clip", workClass: "480p", count: 1, amount: 5 },
    ]);
    // 8 s left of the running clip + 20 + 10 ahead + 10 own.
    expect(e).toMatchObject({ state: "queued", position: 4, ahead: 3, eta_seconds: 48 });
  });

  it("shares the queue between workers", () => {
    const e = waitingEstimate({ ...snapshot, workers: 2 }, fast, [
      { kind: "restore", workClass: "fast", count: 2, amount: 20 },
    ]);
    expect(e.eta_seconds).toBe(20);
  });

  it("gives a running job position 0 and its remaining time, at least a second", () => {
    const running = { ...fast, amount: 100, elapsedSec: 60, progress: 0.75 };
    expect(runningEstimate(snapshot, running)).toMatchObject({
      state: "running",
      position: 0,
      ahead: 0,
      eta_seconds: 20,
    });
    expect(runningEstimate(snapshot, { ...running, progress: 1 }).eta_seconds).toBe(1);
  });

  it("never says a job behind a worker busy for minutes is due in seconds", () => {
    // The worker has run a Studio-Max-like restore for 10 minutes past its prediction with 40 %
    // done; the clip behind it waits for the rest of that restore, not for its own 10 s.
    const busy = {
      ...snapshot,
      running: [{ kind: "restore", workClass: "slow", amount: 60, elapsedSec: 840, progress: 0.4 }],
    };
    const e = waitingEstimate(busy, { kind: "clip", workClass: "480p", amount: 5 }, []);
    expect(e.eta_seconds).toBeGreaterThan(900);
  });
});
