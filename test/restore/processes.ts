/**
 * The spare analysis ffmpegs a process keeps (`src/engines/restore/graph-process.ts`), read
 * from /proc: for tests that check a spare is started, taken, and ended; and the ffmpegs a job's
 * worker runs (their command lines name the job), for tests that check a cancel ended them.
 */
import { readdirSync, readFileSync } from "node:fs";

const read = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return ""; // The process ended while we looked.
  }
};

/**
 * Live ffmpeg children of `parentPid` that wait for a filter graph on their stdin, as they are
 * at this moment (read synchronously: nothing else of this process runs in between).
 */
export function spareFfmpegsNow(parentPid = process.pid): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    // After "(comm) ": state, then parent pid.
    const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (!stat.includes("(ffmpeg)") || parent !== String(parentPid) || state === "Z") continue;
    if (read(`/proc/${entry}/cmdline`).includes("graph_file")) pids.push(Number(entry));
  }
  return pids;
}

/** `spareFfmpegsNow` after this turn of the event loop (spares start on the next one). */
export async function spareFfmpegs(parentPid = process.pid): Promise<number[]> {
  await new Promise((resolve) => setImmediate(resolve));
  return spareFfmpegsNow(parentPid);
}

/** The number of read(2) on this machine's architecture, where we know it. */
const READ_SYSCALL: Partial<Record<NodeJS.Architecture, number>> = { x64: 0, arm64: 63 };

/**
 * Whether every spare of `parentPid` has loaded and now waits for its graph: blocked in a read
 * of its stdin (/proc/<pid>/syscall: the read syscall, fd 0). A spare still loading shows
 * "running" or another call. On an architecture whose read number is not listed it cannot
 * tell and says true: the bench then keeps only its fixed pause.
 */
export function sparesWaiting(parentPid = process.pid): boolean {
  const read0 = READ_SYSCALL[process.arch];
  if (read0 === undefined) return true;
  return spareFfmpegsNow(parentPid).every((pid) =>
    read(`/proc/${pid}/syscall`).startsWith(`${read0} 0x0 `),
  );
}

/** Live ffmpeg processes (any parent) whose command line names one of `ids`. */
export function ffmpegsNaming(ids: readonly string[]): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = read(`/proc/${entry}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    if (!stat.includes("(ffmpeg)") || state === "Z") continue;
    const cmd = read(`/proc/${entry}/cmdline`);
    if (ids.some((id) => cmd.includes(id))) pids.push(Number(entry));
  }
  return pids;
}
