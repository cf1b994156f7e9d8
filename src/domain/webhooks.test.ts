import { describe, expect, it } from "vitest";
import { RESTORE_FINAL, RESTORE_MOVES } from "../kinds/restore/rules/transitions.js";
import {
  movesToFinal,
  parseRetryAfter,
  progressCrossesStep,
  retryableStatus,
  retryDelayMs,
} from "./webhooks.js";

describe("webhook rules", () => {
  it("completes a job once: entering a final status, never final → final (retention)", () => {
    const completing = Object.entries(RESTORE_MOVES)
      .filter(([, m]) => movesToFinal(m, RESTORE_FINAL))
      .map(([name]) => name)
      .sort();
    expect(completing).toEqual(
      [
        "cancel",
        "cancelRunning",
        "complete",
        "fail",
        "refuse",
        "unpaidExpired",
        "uploadExpired",
      ].sort(),
    );
  });

  it("sends progress once per 5 % step", () => {
    expect(progressCrossesStep(null, 0)).toBe(false);
    expect(progressCrossesStep(0, 0.04)).toBe(false);
    expect(progressCrossesStep(0.04, 0.05)).toBe(true);
    expect(progressCrossesStep(0.5, 0.51)).toBe(false);
    expect(progressCrossesStep(0.5, 1)).toBe(true);
  });

  it("retries timeouts, 5xx, 408 and 429 only", () => {
    expect([500, 503, 408, 429].every(retryableStatus)).toBe(true);
    expect([400, 401, 404, 410, 301].some(retryableStatus)).toBe(false);
  });

  it("backs off exponentially with jitter, capped, and honours a longer Retry-After", () => {
    const opts = { baseMs: 10_000, capMs: 6 * 3600_000 };
    expect(retryDelayMs(1, opts, () => 0.5)).toBe(10_000);
    expect(retryDelayMs(3, opts, () => 0.5)).toBe(40_000);
    expect(retryDelayMs(3, opts, () => 0)).toBe(20_000);
    expect(retryDelayMs(3, opts, () => 0.999)).toBeLessThan(60_000);
    expect(retryDelayMs(30, opts, () => 0.5)).toBe(opts.capMs);
    expect(retryDelayMs(1, { ...opts, retryAfterMs: 120_000 }, () => 0.5)).toBe(120_000);
    expect(retryDelayMs(1, { ...opts, retryAfterMs: 99 * 3600_000 }, () => 0.5)).toBe(opts.capMs);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = Date.UTC(2026, 10, 1, 12);
    expect(parseRetryAfter("7", now)).toBe(7000);
    expect(parseRetryAfter(new Date(now + 30_000).toUTCString(), now)).toBe(30_000);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
