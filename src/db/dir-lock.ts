/**
 * PGlite has no lock on its data directory: two processes opening it lose updates silently.
 * We take an exclusive lock file (O_EXCL) naming our pid and the process's start time; a
 * second process gets a clear error. A lock whose holder is gone is taken over — including
 * when its pid was reused by another process (the start time differs) or by this very
 * process after a container restart (pids restart at 1, and a lock this process did not take
 * itself is stale).
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { recordOf } from "../domain/records.js";

/** A held lock on a data directory; release() frees it. */
export interface DirLock {
  release(): void;
}

export class DataDirLockedError extends Error {
  /** The pid holding the lock, for callers that explain what to stop. */
  constructor(
    dir: string,
    readonly pid: number,
  ) {
    super(
      `DATA_DIR ${dir} is in use by another kinora process (pid ${pid}). ` +
        "Stop it first, point DATA_DIR elsewhere, or use DATABASE_URL for several processes.",
    );
    this.name = "DataDirLockedError";
  }
}

/** Locks taken by this process (a second acquire in-process must fail, not take over). */
const held = new Set<string>();

/** Start time of a process in clock ticks since boot (Linux); null where /proc is absent. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22; the command name (field 2) may hold spaces, so count from its closing paren.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return recordOf(err).code === "EPERM";
  }
}

interface Holder {
  pid: number;
  startTime: string | null;
}

function readHolder(file: string): Holder {
  const [pidText, startTime] = readFileSync(file, "utf8").trim().split(/\s+/);
  return { pid: Number.parseInt(pidText ?? "", 10), startTime: startTime ?? null };
}

/** Whether the process named in the lock is still the one that wrote it. */
function holderAlive(h: Holder, file: string): boolean {
  if (!Number.isFinite(h.pid) || h.pid <= 0) return false;
  if (h.pid === process.pid) return held.has(file);
  if (!processAlive(h.pid)) return false;
  // Same pid, another process (reused pid): the start times differ.
  const now = processStartTime(h.pid);
  return h.startTime === null || now === null || now === h.startTime;
}

export function acquireDirLock(dir: string): DirLock {
  const file = path.join(dir, "kinora.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      const content = `${process.pid} ${processStartTime(process.pid) ?? ""}`.trim();
      writeSync(fd, content);
      closeSync(fd);
      held.add(file);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        held.delete(file);
        // A process that opens and closes databases over and over (a test runner, a host
        // embedding kinora) must not collect one exit listener per lock it ever held.
        process.off("exit", release);
        try {
          if (readFileSync(file, "utf8") === content) unlinkSync(file);
        } catch {
          // Already gone: nothing to release.
        }
      };
      process.once("exit", release);
      return { release };
    } catch (err) {
      if (recordOf(err).code !== "EEXIST") throw err;
      const holder = readHolder(file);
      if (holderAlive(holder, file)) throw new DataDirLockedError(dir, holder.pid);
      // Stale lock from a dead (or replaced) process: remove it and try once more.
      unlinkSync(file);
    }
  }
  throw new Error(`could not lock ${dir}`);
}
