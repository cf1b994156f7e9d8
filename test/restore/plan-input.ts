/**
 * What the plan's decision tests decide from: a 640×480 25p source with sound, measurements of a
 * clean, steady, well-levelled picture, and every filter present; each test overrides a part.
 */
import { type Capabilities, decidePlan, type PlanInput } from "../../src/engines/restore/plan.js";
import type { Measurements, RestoreQuality, SourceInfo } from "../../src/engines/restore/types.js";

export const allFilters: Capabilities = { has: () => true };
export const without = (...missing: string[]): Capabilities => ({
  has: (f) => !missing.includes(f),
});

export const source = (over: Partial<SourceInfo> = {}): SourceInfo => ({
  videoCodec: "h264",
  videoStreamIndex: 0,
  width: 640,
  height: 480,
  sarNum: 1,
  sarDen: 1,
  fps: 25,
  rotationCw: 0,
  fieldOrder: "progressive",
  colorMatrix: null,
  audio: { streamIndex: 1, codec: "aac", sampleRate: 48000, channels: 2 },
  headerDurationSec: 10,
  ...over,
});

export const measured = (over: Partial<Measurements> = {}): Measurements => ({
  windowSec: 60,
  interlace: { tff: 0, bff: 0, progressive: 240, undetermined: 10 },
  shakeRatio: 0,
  levels: { yLow: 20, yMid: 110, yHigh: 228, dark: 2, bright: 250, sat: 30 },
  hum: { db50: 1, db60: 1 },
  loudness: { inputI: -24, inputTp: -6, inputLra: 7, inputThresh: -34, targetOffset: 0.1 },
  ...over,
});

export const plan = (quality: RestoreQuality, over: Partial<PlanInput> = {}) =>
  decidePlan({ quality, source: source(), measured: measured(), caps: allFilters, ...over });
