import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { announceStart, startupStep } from "./startup-steps.js";

describe("startup steps", () => {
  it("says nothing of a quick step, and of a slow one that it runs and how long it took", async () => {
    const lines: string[] = [];
    const say = (l: string) => lines.push(l);
    expect(await startupStep("quick", Promise.resolve(1), say)).toBe(1);
    expect(lines).toEqual([]);
    const slow = new Promise((r) => setTimeout(() => r("ok"), 1200));
    expect(await startupStep("opening the database", slow, say)).toBe("ok");
    expect(lines[0]).toBe("opening the database …");
    expect(lines[1]).toMatch(/^opening the database: done in 1\.[2-9] s$/);
  });

  it("passes a failure on, still saying how long the step ran", async () => {
    const lines: string[] = [];
    const failing = new Promise((_, reject) => setTimeout(() => reject(new Error("no")), 1100));
    await expect(startupStep("migrating", failing, (l) => lines.push(l))).rejects.toThrow("no");
    expect(lines).toHaveLength(2);
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
