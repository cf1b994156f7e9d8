/**
 * Rate limits: a fixed-window counter per bucket ("create:<address>", "key:<digest>" …). On
 * PostgreSQL the counters live in the database, so every API node counts against the same
 * number without a new server; on the embedded default (one process) they live in memory.
 *
 * So that a limit costs almost nothing per request, a node reserves its counts in batches: it
 * adds K to the shared counter and then answers K requests from memory. It is never lenient —
 * the shared counter only ever grows by what nodes reserved, so no more than `max` requests pass
 * in a window across all nodes — and at worst it is strict by less than K per node and window
 * (K = max/50, so about 2 % per node; 1 for small limits, which are therefore exact).
 */
import { type Kysely, sql } from "kysely";
import type { DB } from "../db/schema.js";

/** At most `max` in each window of `windowMs`. */
export interface Limit {
  max: number;
  windowMs: number;
}

/** Whether a call may go ahead, and the numbers for the rate-limit headers. */
export interface Decision {
  ok: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSec: number;
}

/** Where window counts live (the database, or memory in tests). */
export interface RateLimitStore {
  /** Adds `n` to `bucket`'s count for the window starting at `windowStart`; the new count. */
  add(bucket: string, windowStart: Date, n: number): Promise<number>;
  /** Forgets windows that ended before `before`. */
  purge(before: Date): Promise<number>;
}

export function memoryRateLimitStore(): RateLimitStore {
  const counts = new Map<string, { start: number; count: number }>();
  return {
    async add(bucket, windowStart, n) {
      const start = windowStart.getTime();
      const current = counts.get(bucket);
      const next = (current && current.start === start ? current.count : 0) + n;
      counts.set(bucket, { start, count: next });
      return next;
    },
    async purge(before) {
      let removed = 0;
      for (const [bucket, v] of counts) {
        if (v.start < before.getTime()) {
          counts.delete(bucket);
          removed++;
        }
      }
      return removed;
    },
  };
}

export function sqlRateLimitStore(db: Kysely<DB>): RateLimitStore {
  return {
    async add(bucket, windowStart, n) {
      const r = await sql<{ count: number }>`
        INSERT INTO rate_limits (bucket, window_start, count) VALUES (${bucket}, ${windowStart}, ${n})
        ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + ${n}
        RETURNING count`.execute(db);
      return Number(r.rows[0]?.count ?? n);
    },
    async purge(before) {
      const r = await sql`DELETE FROM rate_limits WHERE window_start < ${before}`.execute(db);
      return Number(r.numAffectedRows ?? 0);
    },
  };
}

/** Counts calls against named buckets. */
export interface RateLimiter {
  take(bucket: string, limit: Limit): Promise<Decision>;
  purge(): Promise<number>;
}

interface Reserved {
  windowStart: number;
  granted: number;
  used: number;
  /** The shared count as of the last reservation (for RateLimit-Remaining). */
  seen: number;
}

/** How many counts a node reserves at once for a limit of `max`. */
export const batchFor = (max: number) => Math.max(1, Math.floor(max / 50));

export function createRateLimiter(
  store: RateLimitStore,
  clock: () => Date,
  opts: { batched?: boolean } = {},
): RateLimiter {
  const local = new Map<string, Reserved>();
  return {
    async take(bucket, limit) {
      const now = clock().getTime();
      const windowStart = Math.floor(now / limit.windowMs) * limit.windowMs;
      const resetSec = Math.max(1, Math.ceil((windowStart + limit.windowMs - now) / 1000));
      const key = `${bucket}:${limit.windowMs}`;
      let r = local.get(key);
      if (!r || r.windowStart !== windowStart) {
        r = { windowStart, granted: 0, used: 0, seen: 0 };
        local.set(key, r);
      }
      if (r.used >= r.granted) {
        const k = opts.batched ? batchFor(limit.max) : 1;
        const total = await store.add(key, new Date(windowStart), k);
        // Of the k just reserved, only those within the limit may be served.
        r.granted += Math.max(0, Math.min(k, limit.max - (total - k)));
        r.seen = total;
      }
      const ok = r.used < r.granted;
      if (ok) r.used++;
      const remaining = Math.max(0, limit.max - Math.max(r.seen, r.used));
      if (local.size > 50_000) local.clear(); // bound memory under a flood of distinct buckets
      return { ok, limit: limit.max, remaining, resetSec };
    },
    // Windows of up to a day are kept; anything older is finished.
    purge: () => store.purge(new Date(clock().getTime() - 24 * 3600_000)),
  };
}
