/**
 * The in-process WorkSource: claims straight from the job tables. A claim that finds nothing
 * waits for a NOTIFY on JOBS_CHANNEL (sent when a job becomes claimable) or the fallback poll,
 * whichever comes first — so pickup is milliseconds without hammering the database.
 */
import type { Database } from "../db/database.js";
import {
  JOBS_CHANNEL,
  type JobKind,
  type JobQueue,
  type WorkFailure,
  type WorkItem,
  type WorkNote,
  type WorkResult,
  type WorkSource,
} from "./work.js";

/**
 * The kinds with a job waiting, the one queued longest ago first (the order given breaks
 * ties): workers take every kind's jobs from one line, first come first served, so a clip
 * queued before a restore starts before it — and the queue estimate can count what is ahead.
 */
async function oldestFirst(kinds: JobKind[], queue: (kind: JobKind) => JobQueue) {
  if (kinds.length < 2) return kinds;
  const heads = await Promise.all(kinds.map((k) => queue(k).oldestWaiting()));
  return kinds
    .map((kind, i) => ({ kind, i, at: heads[i]?.getTime() }))
    .filter((k): k is { kind: JobKind; i: number; at: number } => k.at !== undefined)
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map((k) => k.kind);
}

/** The in-process work source over every queue, woken by NOTIFY. */
export interface DbWorkSource extends WorkSource {
  /** Wakes every waiting claim now (used after a job is queued in this process). */
  wake(): void;
  /** The server side of a kind (the worker HTTP API reports through it, with outcomes). */
  queue(kind: JobKind): JobQueue;
  /** The lease every claim and heartbeat grants. */
  readonly leaseMs: number;
  /** The kinds this server has queues for. */
  readonly kinds: JobKind[];
  /** From now on claims answer nothing at once (the process is shutting down). */
  drain(): void;
  close(): Promise<void>;
}

/** A work source over the given queues that waits for NOTIFY between claims. */
export async function createDbWorkSource(
  database: Database,
  queues: JobQueue[],
  opts: { leaseMs: number; pollMs?: number },
): Promise<DbWorkSource> {
  const byKind = new Map(queues.map((q) => [q.kind, q]));
  const waiters = new Set<() => void>();
  let draining = false;
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  const unlisten = await database.listen(JOBS_CHANNEL, wake);
  const queue = (kind: JobKind) => {
    const q = byKind.get(kind);
    if (!q) throw new Error(`no job queue for ${kind}`);
    return q;
  };

  const tryClaim = async (kinds: JobKind[], workerId: string) => {
    for (const kind of await oldestFirst(kinds, queue)) {
      const item = await queue(kind).claim(workerId, opts.leaseMs);
      if (item) return item;
    }
    return null;
  };

  return {
    wake,
    drain() {
      draining = true;
      wake();
    },
    async claim(kinds, workerId, waitMs) {
      const deadline = Date.now() + waitMs;
      for (;;) {
        if (draining) return null;
        const item = await tryClaim(kinds, workerId);
        if (item || Date.now() >= deadline) return item;
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          };
          const timer = setTimeout(
            done,
            Math.min(opts.pollMs ?? 1000, Math.max(0, deadline - Date.now())),
          );
          waiters.add(done);
        });
      }
    },
    queue,
    leaseMs: opts.leaseMs,
    kinds: queues.map((q) => q.kind),
    heartbeat: async (item: WorkItem, workerId: string, progress: number | null) =>
      (await queue(item.kind).heartbeat(item.jobId, workerId, opts.leaseMs, progress)) === "ok",
    note: async (item: WorkItem, workerId: string, note: WorkNote) =>
      (await queue(item.kind).note(item.jobId, workerId, note)) === "ok",
    complete: async (item: WorkItem, workerId: string, result: WorkResult) => {
      await queue(item.kind).complete(item.jobId, workerId, result);
    },
    fail: async (item: WorkItem, workerId: string, failure: WorkFailure) => {
      await queue(item.kind).fail(item.jobId, workerId, failure);
    },
    release: async (item: WorkItem, workerId: string) => {
      await queue(item.kind).release(item.jobId, workerId);
    },
    async close() {
      wake();
      await unlisten();
    },
  };
}
