import { describe, expect, it } from "vitest";
import { tooLong } from "../../workers/executors/restore.js";
import { restoreEngineFromConfig } from "../../workers/executors/restore-engine.js";
import { assertTransition, RESTORE_MESSAGES, RESTORE_TRANSITIONS } from "./transitions.js";

describe("restore transitions", () => {
  it("refunds exactly on the moves that give money back", () => {
    const refunding = RESTORE_TRANSITIONS.filter((t) => t.refunds).map((t) => `${t.from}>${t.to}`);
    expect(refunding.sort()).toEqual(
      [
        "awaiting_upload>cancelled",
        "awaiting_upload>expired",
        "processing>failed",
        "processing>refunded",
      ].sort(),
    );
  });

  it("refuses moves not in the table", () => {
    expect(() => assertTransition("done", "processing")).toThrow(/cannot move/);
    expect(() => assertTransition("cancelled", "processing")).toThrow(/cannot move/);
    expect(() => assertTransition("pending_payment", "cancelled")).toThrow(/cannot move/);
  });

  it("explains a lying duration in minutes", () => {
    expect(RESTORE_MESSAGES.tooLong(720, 6)).toBe(
      "The video is 12 min long but 0.1 min was declared; it was refunded — create a new job with the real duration.",
    );
  });
});

describe("length check", () => {
  it("allows 10 % plus 2 s over the declared length", () => {
    expect(tooLong(12.9, 10)).toBe(false);
    expect(tooLong(13.1, 10)).toBe(true);
    expect(tooLong(3, 1)).toBe(false);
    expect(tooLong(3.2, 1)).toBe(true);
  });
});

describe("engine selection", () => {
  it("defaults to ffmpeg, builds cog from its URL, and names the missing variable", () => {
    expect(restoreEngineFromConfig({ env: {} }).name).toBe("ffmpeg");
    expect(
      restoreEngineFromConfig({
        env: { RESTORE_ENGINE: "cog", RESTORE_COG_URL: "http://127.0.0.1:5000" },
      }).name,
    ).toBe("cog-restore");
    expect(() => restoreEngineFromConfig({ env: { RESTORE_ENGINE: "cog" } })).toThrow(
      /RESTORE_COG_URL/,
    );
    expect(() => restoreEngineFromConfig({ env: { RESTORE_ENGINE: "gpu" } })).toThrow(
      /RESTORE_ENGINE/,
    );
  });
});
