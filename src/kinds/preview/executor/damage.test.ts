/** Where a preview looks: the scores, the words, the candidate windows and the cap. */
import { describe, expect, it } from "vitest";
import { PREVIEW_EXCERPT_MAX_SEC } from "../rules/transitions.js";
import { PreviewResult, PreviewWorkParams } from "../services/definition.js";
import { previewSettings } from "../services/settings.js";
import {
  candidateStarts,
  damageScore,
  foundWords,
  type WindowReading,
  worstIndex,
} from "./damage.js";

const levels = { yLow: 16, yMid: 120, yHigh: 235, dark: 2, bright: 250, sat: 30 };
const clean: WindowReading = {
  interlace: { tff: 0, bff: 0, progressive: 40, undetermined: 2 },
  levels,
  noise: { y: 0.4, c: 0.2 },
  chromaShift: 0,
  flicker: 0.05,
  blur: 0.4,
};

describe("damage", () => {
  it("scores each measure against the engine's threshold for acting on it", () => {
    expect(damageScore(clean)).toBeLessThan(1.5);
    const grainy = { ...clean, noise: { y: 3.7, c: 2 } };
    expect(damageScore(grainy)).toBeGreaterThan(damageScore(clean) + 1.5);
    const combed = { ...clean, interlace: { tff: 30, bff: 0, progressive: 10, undetermined: 0 } };
    expect(foundWords(combed)).toEqual(["interlaced (75 % of frames combed)"]);
    const faded = { ...clean, levels: { ...levels, dark: 45, bright: 200 } };
    expect(foundWords(faded)).toEqual(["faded (blacks at 45)"]);
    expect(foundWords(clean)).toEqual(["no damage past the engine's thresholds"]);
    expect(foundWords({ ...grainy, chromaShift: -4 })).toEqual([
      "grain σ 3.7",
      "colour slipped 4 px",
    ]);
  });

  it("picks the worst window, the first on a tie", () => {
    const grainy = { ...clean, noise: { y: 3, c: 1 } };
    expect(worstIndex([clean, grainy, clean])).toBe(1);
    expect(worstIndex([clean, clean])).toBe(0);
  });

  it("spreads the candidates over the video, or takes a short one whole", () => {
    expect(candidateStarts(3, 3, 6)).toEqual([0]);
    expect(candidateStarts(7, 5, 6)).toEqual([0, 0.4, 0.8, 1.2, 1.6, 2]);
    const hour = candidateStarts(3600, 5, 6);
    expect(hour).toHaveLength(6);
    expect(hour.at(-1)).toBe(3595);
  });

  it("never lets an excerpt past 6 s, asked by the server or reported by a worker", () => {
    const params = { sizeBytes: 1, sourceUrl: null, outputs: {} };
    expect(PreviewWorkParams.safeParse({ ...params, excerptSec: 5 }).success).toBe(true);
    expect(
      PreviewWorkParams.safeParse({ ...params, excerptSec: PREVIEW_EXCERPT_MAX_SEC + 1 }).success,
    ).toBe(false);
    const result = { duration_sec: 60, start_sec: 0, found: [], qualities: [] };
    expect(PreviewResult.safeParse({ ...result, length_sec: 6 }).success).toBe(true);
    expect(PreviewResult.safeParse({ ...result, length_sec: 6.5 }).success).toBe(false);
  });
});

describe("PREVIEW_PER_HOUR", () => {
  it("is a whole number from 0; anything else is refused naming the setting", () => {
    expect(previewSettings({})).toEqual({ perHour: 6 });
    expect(previewSettings({ PREVIEW_PER_HOUR: "0" })).toEqual({ perHour: 0 });
    expect(() => previewSettings({ PREVIEW_PER_HOUR: "lots" })).toThrow(
      /^PREVIEW_PER_HOUR must be/,
    );
    expect(() => previewSettings({ PREVIEW_PER_HOUR: "-1" })).toThrow(/^PREVIEW_PER_HOUR must be/);
  });
});
