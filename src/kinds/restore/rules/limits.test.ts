import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../engines/restore/limits.js";
import { maxrateFor } from "../../../engines/restore/plan.js";
import {
  RESTORE_MAX_DELIVERY_BITS_PER_SEC,
  RESTORE_OUTPUT_MIN_CAP_BYTES,
  restoreOutputMaxBytes,
  tooLong,
} from "./limits.js";

describe("the cap on a restored file", () => {
  it("covers the engine's highest delivery rate (video VBV cap at Studio Max, above 1080 lines)", () => {
    const videoBits = maxrateFor("enhanced_max", 7680, 4320) * 1000;
    const highestCap = Math.max(...LIMITS.maxrateK.map(([, k]) => k)) * LIMITS.studioMaxRateShare;
    expect(videoBits).toBe(highestCap * 1000);
    expect(RESTORE_MAX_DELIVERY_BITS_PER_SEC).toBeGreaterThanOrEqual(videoBits + 512_000);
  });

  it("is never under 4 GiB, so short videos keep today's cap", () => {
    expect(restoreOutputMaxBytes(5)).toBe(RESTORE_OUTPUT_MIN_CAP_BYTES);
    expect(restoreOutputMaxBytes(600)).toBe(RESTORE_OUTPUT_MIN_CAP_BYTES);
  });

  it("grows with the length: a two-hour tape at Enhanced (≈ 4.5 GB) fits, six hours at the top rate too", () => {
    const twoHoursEnhanced = ((2 * 3600 * (4000 + 192) * 1000) / 8) * 1.2;
    expect(restoreOutputMaxBytes(2 * 3600)).toBeGreaterThan(twoHoursEnhanced);
    // The longest length the worker accepts for a 6-hour declaration, at the highest rate.
    const declared = 6 * 3600;
    let longest = declared;
    while (!tooLong(longest + 1, declared)) longest += 1;
    expect(restoreOutputMaxBytes(declared)).toBeGreaterThan(
      (longest * RESTORE_MAX_DELIVERY_BITS_PER_SEC) / 8,
    );
  });
});
