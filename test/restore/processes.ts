/**
 * The spare analysis ffmpegs a process keeps (`src/engines/restore/graph-process.ts`), read
 * from /proc: for tests that check a spare is started, taken, and ended.
 */
import { readdir, readFile } from "node:fs/promises";

/** Live ffmpeg children of `parentPid` that wait for a filter graph on their stdin. */
export async function spareFfmpegs(parentPid = process.pid): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // After "(comm) ": state, then parent pid.
    const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (!stat.includes("(ffmpeg)") || parent !== String(parentPid) || state === "Z") continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes("graph_file")) pids.push(Number(entry));
  }
  return pids;
}
