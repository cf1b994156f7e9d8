import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { acquireDirLock, DataDirLockedError } from "./dir-lock.js";

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
    expect(readFileSync(path.join(dir, "kinora.lock"), "utf8")).toBe(String(process.pid));
    expect(() => acquireDirLock(dir)).toThrow(DataDirLockedError);
    expect(() => acquireDirLock(dir)).toThrow(/in use by another kinora process/);
    lock.release();
    acquireDirLock(dir).release();
  });

  it("takes over a lock left by a process that no longer exists", () => {
    const dir = tempDir();
    // pid 2^22+1 is above Linux's default pid_max, so no live process holds it.
    writeFileSync(path.join(dir, "kinora.lock"), String(4_194_305));
    const lock = acquireDirLock(dir);
    expect(readFileSync(path.join(dir, "kinora.lock"), "utf8")).toBe(String(process.pid));
    lock.release();
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
