/**
 * Where the CPU went during a benchmark run, read from /proc (Linux): the machine's busy share,
 * and the CPU seconds of chosen process groups, of PostgreSQL's processes, and of this process.
 * It explains a throughput figure: a run that keeps every core busy cannot go faster by adding
 * processes on the same machine.
 */
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** Linux's USER_HZ: /proc counts CPU time in 1/100 s on every architecture we run on. */
const TICKS_PER_SEC = 100;

interface Sample {
  machineBusy: number;
  machineAll: number;
  groups: Map<number, number>;
  postgres: number;
  self: number;
}

function machineTicks(): { busy: number; all: number } {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "")
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const all = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { busy: all - idle, all };
}

function sample(groups: number[]): Sample {
  const byGroup = new Map(groups.map((g) => [g, 0]));
  let postgres = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After "(comm) ": state ppid pgrp … utime is field 14 and stime 15 of the whole line.
    const pgrp = Number(rest[2]);
    const sec = (Number(rest[11]) + Number(rest[12])) / TICKS_PER_SEC;
    if (byGroup.has(pgrp)) byGroup.set(pgrp, (byGroup.get(pgrp) ?? 0) + sec);
    if (comm === "postgres") postgres += sec;
  }
  const usage = process.cpuUsage();
  const m = machineTicks();
  return {
    machineBusy: m.busy,
    machineAll: m.all,
    groups: byGroup,
    postgres,
    self: (usage.user + usage.system) / 1e6,
  };
}

export interface CpuSplit {
  /** Wall time of the run, in seconds. */
  wallSec: number;
  /** Busy share of all cores over the run, 0..1. */
  machineBusy: number;
  cores: number;
  /** Cores' worth used by each process group, PostgreSQL, and this process. */
  groups: number[];
  postgres: number;
  self: number;
}

/** Runs `fn`, returning its result and how the CPU was spent meanwhile. */
export async function withCpuSplit<T>(
  groups: number[],
  fn: () => Promise<T>,
): Promise<{ result: T; cpu: CpuSplit }> {
  const before = sample(groups);
  const t0 = performance.now();
  const result = await fn();
  const wall = (performance.now() - t0) / 1000;
  const after = sample(groups);
  const coresOf = (a: number, b: number) => (a - b) / wall;
  return {
    result,
    cpu: {
      wallSec: wall,
      machineBusy:
        (after.machineBusy - before.machineBusy) / (after.machineAll - before.machineAll || 1),
      cores: availableParallelism(),
      groups: groups.map((g) => coresOf(after.groups.get(g) ?? 0, before.groups.get(g) ?? 0)),
      postgres: coresOf(after.postgres, before.postgres),
      self: coresOf(after.self, before.self),
    },
  };
}
