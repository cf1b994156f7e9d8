import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../config.js";
import { movesFrom } from "../../../domain/job-lifecycle/moves.js";
import { restoreEngineFromConfig } from "../executor/engine.js";
import { tooLong } from "./limits.js";
import { RESTORE_MESSAGES, RESTORE_MOVES } from "./transitions.js";

describe("restore transitions", () => {
  it("refunds exactly on the moves that give money back", () => {
    const refunding = Object.values(RESTORE_MOVES)
      .filter((m) => m.refunds)
      .flatMap((m) => m.from.map((from) => `${from}>${m.to}`));
    expect(refunding.sort()).toEqual(
      [
        "awaiting_upload>cancelled",
        "awaiting_upload>expired",
        "queued>cancelled",
        "processing>cancelled",
        "processing>failed",
        "processing>refunded",
      ].sort(),
    );
  });

  it("leaves final statuses only by retention", () => {
    for (const status of ["failed", "refunded", "cancelled", "expired"] as const) {
      expect(movesFrom(RESTORE_MOVES, status)).toEqual([]);
    }
    expect(movesFrom(RESTORE_MOVES, "done")).toEqual(["retentionExpired"]);
    expect(movesFrom(RESTORE_MOVES, "pending_payment").sort()).toEqual(["pay", "unpaidExpired"]);
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
    const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: "/tmp/x", ...env });
    expect(restoreEngineFromConfig(config({})).name).toBe("ffmpeg");
    expect(
      restoreEngineFromConfig(
        config({ RESTORE_ENGINE: "cog", RESTORE_COG_URL: "http://127.0.0.1:5000" }),
      ).name,
    ).toBe("cog-restore");
    // Checked when the configuration is loaded, before anything else starts.
    expect(() => config({ RESTORE_ENGINE: "cog" })).toThrow(/RESTORE_COG_URL/);
    expect(() => config({ RESTORE_ENGINE: "gpu" })).toThrow(/RESTORE_ENGINE/);
    expect(() => config({ CLIP_ENGINE: "cog" })).toThrow(/CLIP_COG_URL/);
  });
});
