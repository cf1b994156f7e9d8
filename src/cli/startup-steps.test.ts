import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  announceReady,
  announceStart,
  listeningBanner,
  type Say,
  startupStep,
} from "./startup-steps.js";

/** `value` in `ms` of the faked clock. */
const settleIn = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms));

describe("startup steps", () => {
  // The timers and performance.now() are faked: the steps' times are exact and nothing sleeps.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("says nothing of a quick step, and of a slow one that it runs and how long it took", async () => {
    const lines: string[] = [];
    const say = (l: string) => lines.push(l);
    expect(await startupStep("quick", Promise.resolve(1), say)).toBe(1);
    expect(lines).toEqual([]);
    const step = startupStep("opening the database", settleIn(1200, "ok"), say);
    await vi.advanceTimersByTimeAsync(1200);
    expect(await step).toBe("ok");
    expect(lines).toEqual(["opening the database …", "opening the database took 1.2 s"]);
  });

  it("passes a failure on, still saying how long the step ran", async () => {
    const lines: string[] = [];
    const failing = new Promise((_, reject) => setTimeout(() => reject(new Error("no")), 1100));
    const step = startupStep("migrating", failing, (l) => lines.push(l));
    const refused = expect(step).rejects.toThrow("no");
    await vi.advanceTimersByTimeAsync(1100);
    await refused;
    expect(lines).toEqual(["migrating …", "migrating took 1.1 s"]);
  });

  it("times a step that waits for another from when that one ended: its own time, labelled", async () => {
    const lines: string[] = [];
    const say: Say = (l) => lines.push(l);
    const opening = startupStep("opening the database", settleIn(1300, "db"), say);
    // Starting takes 1.2 s of its own after the database: 2.5 s in all.
    const starting = opening.then(() => settleIn(1200, "server"));
    const step = startupStep("starting the service", starting, say, {
      after: { work: opening, what: "the database was open" },
    });
    await vi.advanceTimersByTimeAsync(2500);
    expect(await step).toBe("server");
    expect(lines).toEqual([
      "opening the database …",
      "opening the database took 1.3 s",
      "starting the service …",
      // Not 2.5 s: the database's time is not counted again.
      "starting the service took 1.2 s (once the database was open)",
    ]);
  });

  it("ends with the time since the process started", () => {
    const lines: string[] = [];
    announceReady((l) => lines.push(l), 8437);
    expect(lines).toEqual(["ready 8.4 s after start"]);
  });

  it("names the database at once, and a first start as one", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "kinora-start-"));
    const lines: string[] = [];
    announceStart({ dataDir: dir }, (l) => lines.push(l));
    mkdirSync(path.join(dir, "pglite"));
    announceStart({ dataDir: dir }, (l) => lines.push(l));
    announceStart({ dataDir: dir, databaseUrl: "postgres://x" }, (l) => lines.push(l));
    expect(lines).toEqual([
      `starting on a new embedded database in ${dir} (first start: created from its template) …`,
      `starting on the embedded database in ${dir} …`,
      "starting on PostgreSQL …",
    ]);
  });
});

describe("the listening banner", () => {
  it("says where it listens, where the console and docs are, and how to get a wallet", () => {
    const text = listeningBanner({
      url: "http://0.0.0.0:8080",
      publicUrl: "https://kinora.example.com/",
    });
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe("kinora is listening on http://0.0.0.0:8080");
    // Links a person follows are at the public URL, never the wildcard address.
    expect(text).toContain("Console:  https://kinora.example.com/console");
    expect(text).toContain("API docs: https://kinora.example.com/docs");
    expect(text).toMatch(/Create a new balance.*wallet key \(pmk_…\) is shown once/);
    expect(text).toContain("curl -s -X POST https://kinora.example.com/wallet");
    expect(text).not.toContain("0.0.0.0:8080/");
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
  });
});
