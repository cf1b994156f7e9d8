import { describe, expect, it } from "vitest";
import {
  DEFAULT_SAMPLING,
  evenSamples,
  guaranteedSpanSec,
  planReads,
  planSamples,
  readAsGuessed,
  sampledSeconds,
} from "./sampling.js";

describe("planSamples", () => {
  it("spreads excerpts from the very start to the very end of the file", () => {
    const samples = planSamples(600);
    expect(samples).toHaveLength(10);
    expect(samples[0]?.startSec).toBe(0);
    const last = samples.at(-1);
    expect((last?.startSec ?? 0) + (last?.seconds ?? 0)).toBeCloseTo(600, 3);
    const gaps = samples.slice(1).map((s, i) => s.startSec - (samples[i]?.startSec ?? 0));
    expect(Math.max(...gaps) - Math.min(...gaps)).toBeLessThan(0.01);
  });

  it("decodes a bounded share: 12 % of a short file, at most a minute of a long one", () => {
    expect(sampledSeconds(planSamples(10))).toBe(1.5);
    expect(sampledSeconds(planSamples(100))).toBeCloseTo(12, 1);
    expect(sampledSeconds(planSamples(7200))).toBeCloseTo(60, 1);
    expect(planSamples(7200)).toHaveLength(DEFAULT_SAMPLING.maxSamples);
  });

  it("reads a short clip whole, and the first minute when the length is unknown", () => {
    expect(planSamples(1.2)).toEqual([{ startSec: 0, seconds: 1.2 }]);
    expect(planSamples(null)).toEqual([{ startSec: 0, seconds: 60 }]);
  });

  it("gives slower analyses (shake, hum) longer excerpts at the same spots' spacing", () => {
    const samples = planSamples(30, DEFAULT_SAMPLING, 2);
    expect(samples.map((s) => s.seconds)).toEqual([2, 2, 2]);
    expect(samples.map((s) => s.startSec)).toEqual([0, 14, 28]);
  });
});

describe("guaranteedSpanSec", () => {
  it("is the stretch that always holds a whole excerpt", () => {
    const samples = evenSamples(100, 5, 2);
    // Excerpts at 0, 24.5, 49, 73.5, 98: any 26.5 s stretch holds one whole.
    expect(guaranteedSpanSec(samples, 100)).toBeCloseTo(26.5, 3);
    expect(guaranteedSpanSec([{ startSec: 0, seconds: 100 }], 100)).toBe(0);
  });
});

describe("planReads", () => {
  const samples = evenSamples(60, 4, 1); // 0, 19.667, 39.333, 59
  it("starts each excerpt on the keyframe just before it", () => {
    expect(planReads(samples, [0, 19, 39, 58])).toEqual({
      mode: "seek",
      samples: [0, 19, 39, 58].map((startSec) => ({ startSec, seconds: 1 })),
    });
  });

  it("pays for a far keyframe's lead but keeps the excerpt where it was planned", () => {
    const plan = planReads(samples, [0, 15, 39, 58]);
    expect(plan.mode).toBe("seek");
    expect(plan.samples[1]).toEqual({ startSec: 19.667, seconds: 1 });
  });

  it("reads straight through when every seek would decode from one far keyframe", () => {
    expect(planReads(samples, [0, 0, 0, 50])).toEqual({ mode: "through", samples });
    expect(planReads(samples, null).mode).toBe("through");
  });
});

describe("readAsGuessed", () => {
  const samples = evenSamples(60, 4, 1); // 0, 19.667, 39.333, 59; keyframes moved ≤ 2 s
  it("holds when every excerpt was kept from where planReads places it", () => {
    // Near keyframes: each excerpt kept from its landing.
    const near = [0, 19, 39.333, 58];
    expect(readAsGuessed(samples, planReads(samples, near), near, near)).toBe(true);
    // One far keyframe (15 for 19.667): its lead dropped, kept from the planned start on.
    const far = [0, 15, 39, 58];
    const kept = [0, 19.68, 39, 58];
    expect(readAsGuessed(samples, planReads(samples, far), far, kept)).toBe(true);
    // A keyframe just past the planned start (the seek aims 1 ms past it) counts as near.
    const past = [0, 19.6675, 39, 58];
    expect(readAsGuessed(samples, planReads(samples, past), past, past)).toBe(true);
  });

  it("fails when an excerpt was placed otherwise, read straight through, or unknown", () => {
    // The run kept a far keyframe's lead (it decided on the exact time, planReads on the text).
    const far = [0, 15, 39, 58];
    expect(readAsGuessed(samples, planReads(samples, far), far, far)).toBe(false);
    // It dropped a near keyframe's lead.
    const near = [0, 17.667, 39, 58];
    const dropped = [0, 19.68, 39, 58];
    expect(readAsGuessed(samples, planReads(samples, near), near, dropped)).toBe(false);
    const longGops = [0, 0, 0, 50];
    expect(readAsGuessed(samples, planReads(samples, longGops), longGops, longGops)).toBe(false);
    expect(readAsGuessed(samples, planReads(samples, null), undefined, undefined)).toBe(false);
    const lost = [0, null, 39, 58];
    expect(readAsGuessed(samples, planReads(samples, lost), lost, lost)).toBe(false);
  });
});
