/**
 * PGlite has no lock on its data directory: two processes opening it lose updates silently.
 * We take an exclusive lock file (O_EXCL) holding our pid; a second process gets a clear error.
 * A lock left by a dead process (crash, kill -9) is taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";

export interface DirLock {
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `DATA_DIR ${dir} is in use by another kinora process (pid ${pid}). ` +
        "Stop it first, point DATA_DIR elsewhere, or use DATABASE_URL for several processes.",
    );
    this.name = "DataDirLockedError";
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function acquireDirLock(dir: string): DirLock {
  const file = path.join(dir, "kinora.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(file, "utf8") === String(process.pid)) unlinkSync(file);
        } catch {
          // Already gone: nothing to release.
        }
      };
      process.once("exit", release);
      return { release };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number.parseInt(readFileSync(file, "utf8"), 10);
      if (Number.isFinite(holder) && holder !== process.pid && processAlive(holder)) {
        throw new DataDirLockedError(dir, holder);
      }
      if (holder === process.pid) throw new DataDirLockedError(dir, holder);
      // Stale lock from a dead process: remove it and try once more.
      unlinkSync(file);
    }
  }
  throw new Error(`could not lock ${dir}`);
}
