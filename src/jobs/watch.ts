/**
 * Waiting for a job to change (REST `?wait=N`, MCP `wait_seconds`): every status move and
 * progress report NOTIFYs the job's id on one channel; a process LISTENs once and wakes the
 * requests waiting on that id. A slow fallback read covers a missed notification (another
 * node's listener reconnecting), so a wait is correct on any node, at most a little late.
 */
import { type QueryExecutorProvider, sql } from "kysely";
import type { Database } from "../db/database.js";

const JOB_EVENTS_CHANNEL = "kinora_job_events";
/** Longest wait a caller may ask for: below common proxy idle time-outs (30 s). */
const MAX_WAIT_SEC = 25;
/** How often a waiting request re-reads the job even without a notification. */
const FALLBACK_READ_MS = 2000;

/** Waits for a job's next change (for `?wait=` and `wait_seconds`). */
export interface JobWatch {
  /** Resolves when job `id` is notified, after `ms`, or when the signal aborts. */
  next(id: string, ms: number, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** Tells every watcher (on every node) that job `id` changed. */
export async function notifyJobEvent(db: QueryExecutorProvider, id: string): Promise<void> {
  await sql`SELECT pg_notify(${JOB_EVENTS_CHANNEL}, ${id})`.execute(db);
}

/** Listens for job changes once and wakes the waiters of each id. */
export async function createJobWatch(database: Pick<Database, "listen">): Promise<JobWatch> {
  const waiters = new Map<string, Set<() => void>>();
  const unlisten = await database.listen(JOB_EVENTS_CHANNEL, (id) => {
    for (const wake of waiters.get(id) ?? []) wake();
  });
  return {
    next(id, ms, signal) {
      return new Promise<void>((resolve) => {
        const set = waiters.get(id) ?? new Set();
        waiters.set(id, set);
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          set.delete(done);
          if (set.size === 0) waiters.delete(id);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, ms));
        signal?.addEventListener("abort", done);
        set.add(done);
      });
    },
    async close() {
      for (const set of waiters.values()) for (const wake of [...set]) wake();
      await unlisten();
    },
  };
}

interface Observed {
  status: string;
  progress: number | null;
}

/** What ends a wait early: a new status only, or any progress report too. */
export type WaitUntil = "status" | "progress";

interface WaitOptions<T> {
  waitMs: number;
  final: readonly string[];
  signal?: AbortSignal;
  /** Default "status": progress alone does not end the wait (a long job takes few reads). */
  until?: WaitUntil | undefined;
  /** Told of each progress change seen while the wait goes on (MCP progress notifications). */
  onProgress?: ((latest: T) => void) | undefined;
}

/**
 * Reads the job, then waits up to `waitMs` for its status to differ from that first read (or,
 * with `until: "progress"`, its progress too); returns the last read. A job in a final status
 * answers at once.
 */
export async function waitForChange<T extends Observed>(
  watch: JobWatch | undefined,
  id: string,
  read: () => Promise<T>,
  opts: WaitOptions<T>,
): Promise<T> {
  const first = await read();
  if (!watch || opts.waitMs <= 0 || opts.final.includes(first.status)) return first;
  const deadline = Date.now() + Math.min(opts.waitMs, MAX_WAIT_SEC * 1000);
  let latest = first;
  while (Date.now() < deadline && !opts.signal?.aborted) {
    await watch.next(id, Math.min(FALLBACK_READ_MS, deadline - Date.now()), opts.signal);
    const before = latest;
    latest = await read();
    if (latest.status !== first.status) return latest;
    if (latest.progress !== before.progress) {
      if (opts.until === "progress") return latest;
      opts.onProgress?.(latest);
    }
  }
  return latest;
}
