import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openScratch, STALE_SCRATCH_MS, sweepScratch } from "./scratch.js";

const root = mkdtempSync(path.join(tmpdir(), "kinora-scratch-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("worker scratch", () => {
  it("sweeps the directories of processes that died mid-job, and keeps live ones", async () => {
    const dead = path.join(root, "123-dead");
    mkdirSync(path.join(dead, "restore-rj_x-abc"), { recursive: true });
    writeFileSync(path.join(dead, "restore-rj_x-abc", "input"), Buffer.alloc(1024));
    writeFileSync(path.join(dead, ".alive"), "123");
    const old = new Date(Date.now() - STALE_SCRATCH_MS - 60_000);
    utimesSync(path.join(dead, ".alive"), old, old);

    const live = await openScratch(root);
    expect(existsSync(live.dir)).toBe(true);
    expect(existsSync(dead)).toBe(false);
    // Another process starting now sweeps nothing that is alive.
    expect(await sweepScratch(root)).toBe(0);
    expect(existsSync(live.dir)).toBe(true);
    await live.close();
    expect(existsSync(live.dir)).toBe(false);
  });
});
