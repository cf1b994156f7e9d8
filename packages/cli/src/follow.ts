/**
 * Following a job until it settles. Each read asks the server to hold the answer until the job
 * changes (`?wait=N`); a server that does not honour `wait` answers at once, so when a read
 * comes back quickly with nothing new the client paces itself (about one read a second) — the
 * same code works, efficiently, against either. Brief outages are ridden out with back-off.
 */

import { backoffMs, sleep } from "@kinora/client";
import { Interrupted, isAbort, isTransient } from "./failures.js";

interface JobState {
  status: string;
  progress: number | null;
}

interface FollowOptions<J> {
  /** One read of the job; `waitSec` is the long-poll the server may honour. */
  read(waitSec: number): Promise<J>;
  state(job: J): JobState;
  terminal: ReadonlySet<string>;
  onUpdate?(job: J): void;
  /** Every answer, changed or not (a queue estimate moves between status changes). */
  onRead?(job: J): void;
  onRetry?(attempt: number, delayMs: number, reason: string): void;
  signal?: AbortSignal;
  /** Long-poll seconds to ask for (the API allows 0–25). */
  waitSec?: number;
  /** Least time between two reads that brought nothing new. */
  paceMs?: number;
  /** Consecutive failed reads tolerated before giving up (about a minute of back-off). */
  maxFailures?: number;
}

export const FOLLOW_WAIT_SEC = 20;

/** Reads until the job reaches a terminal status; resolves with that last read. */
export async function followJob<J>(opts: FollowOptions<J>): Promise<J> {
  const paceMs = opts.paceMs ?? 1000;
  const maxFailures = opts.maxFailures ?? 7;
  let last: JobState | undefined;
  let failures = 0;
  for (;;) {
    const startedAt = Date.now();
    let job: J;
    try {
      // The first read answers at once: the bar shows where the job stands (its queue place
      // and estimate) from the start, not after the first change.
      job = await opts.read(last === undefined ? 0 : (opts.waitSec ?? FOLLOW_WAIT_SEC));
      failures = 0;
    } catch (err) {
      if (opts.signal?.aborted || isAbort(err)) throw new Interrupted();
      if (!isTransient(err) || ++failures >= maxFailures) throw err;
      const delayMs = backoffMs(failures, 1000);
      // cast: the client's calls reject with its KinoraError or fetch's Error
      opts.onRetry?.(failures, delayMs, (err as Error).message);
      await pause(delayMs, opts.signal);
      continue;
    }
    opts.onRead?.(job);
    const state = opts.state(job);
    const changed = !last || state.status !== last.status || state.progress !== last.progress;
    last = state;
    if (changed) opts.onUpdate?.(job);
    if (opts.terminal.has(state.status)) return job;
    const elapsed = Date.now() - startedAt;
    if (!changed && elapsed < paceMs) await pause(paceMs - elapsed, opts.signal);
  }
}

async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  await sleep(ms, signal).catch(() => {
    throw new Interrupted();
  });
}
