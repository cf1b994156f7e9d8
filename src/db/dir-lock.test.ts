import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { acquireDirLock, DataDirLockedError, processStartTime } from "./dir-lock.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-lock-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("DATA_DIR lock", () => {
  it("refuses a second opener with a clear error, and frees the dir on release", () => {
    const dir = tempDir();
    const lock = acquireDirLock(dir);
    expect(readFileSync(path.join(dir, "kinora.lock"), "utf8")).toMatch(
      new RegExp(`^${process.pid}( \\d+)?$`),
    );
    expect(() => acquireDirLock(dir)).toThrow(DataDirLockedError);
    expect(() => acquireDirLock(dir)).toThrow(/in use by another kinora process/);
    lock.release();
    acquireDirLock(dir).release();
  });

  it("leaves no exit listener behind once released", () => {
    const dir = tempDir();
    const before = process.listenerCount("exit");
    for (let i = 0; i < 20; i++) acquireDirLock(dir).release();
    expect(process.listenerCount("exit")).toBe(before);
  });

  it("takes over a lock left by a process that no longer exists", () => {
    const dir = tempDir();
    // pid 2^22+1 is above Linux's default pid_max, so no live process holds it.
    writeFileSync(path.join(dir, "kinora.lock"), String(4_194_305));
    const lock = acquireDirLock(dir);
    expect(readFileSync(path.join(dir, "kinora.lock"), "utf8")).toMatch(
      new RegExp(`^${process.pid}\\b`),
    );
    lock.release();
  });

  it("takes over a lock naming this very pid that this process did not take (container restart)", () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "kinora.lock"), `${process.pid} 1`);
    const lock = acquireDirLock(dir);
    expect(() => acquireDirLock(dir)).toThrow(DataDirLockedError);
    lock.release();
  });

  it("takes over a lock whose pid now belongs to another process (pid reused)", () => {
    const dir = tempDir();
    // pid 1 is alive, but it did not start at tick 1 after boot of another life: a stale lock.
    const start = processStartTime(1);
    if (start === null) return; // no /proc here: the start time cannot be compared
    writeFileSync(path.join(dir, "kinora.lock"), `1 ${Number(start) + 12345}`);
    acquireDirLock(dir).release();
    // And a live holder with the matching start time keeps its lock.
    writeFileSync(path.join(dir, "kinora.lock"), `1 ${start}`);
    expect(() => acquireDirLock(dir)).toThrow(DataDirLockedError);
  });

  it("keeps a second PGlite database off a directory that is open", async () => {
    const dir = tempDir();
    const first = await openDatabase({ dataDir: dir });
    await expect(openDatabase({ dataDir: dir })).rejects.toThrow(DataDirLockedError);
    await first.close();
    const again = await openDatabase({ dataDir: dir });
    await again.close();
  }, 60_000);
});
