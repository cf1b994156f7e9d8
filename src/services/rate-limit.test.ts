import { describe, expect, it } from "vitest";
import { onPostgres, openTestDatabase } from "../../test/db.js";
import { testClock } from "../../test/deps.js";
import {
  batchFor,
  createRateLimiter,
  memoryRateLimitStore,
  type RateLimitStore,
  sqlRateLimitStore,
} from "./rate-limit.js";

const limit = { max: 100, windowMs: 60_000 };

async function twoNodes(store: RateLimitStore) {
  const clock = testClock();
  const a = createRateLimiter(store, clock.now, { batched: true });
  const b = createRateLimiter(store, clock.now, { batched: true });
  let passed = 0;
  await Promise.all(
    Array.from({ length: 300 }, async (_, i) => {
      if ((await (i % 2 ? a : b).take("k:1", limit)).ok) passed++;
    }),
  );
  return { passed, clock, a };
}

describe("rate limiter", () => {
  it("never lets more than the limit through across nodes sharing the counter, and nearly all of it", async () => {
    const { passed } = await twoNodes(memoryRateLimitStore());
    expect(passed).toBeLessThanOrEqual(100);
    expect(passed).toBeGreaterThanOrEqual(100 - 2 * batchFor(100));
  });

  // The database counter is what several PostgreSQL nodes share (PGlite uses the memory one).
  it.skipIf(!onPostgres)(
    "does the same against the database counter, and opens again in the next window",
    async () => {
      const db = await openTestDatabase();
      try {
        const { passed, clock, a } = await twoNodes(sqlRateLimitStore(db.db));
        expect(passed).toBeLessThanOrEqual(100);
        expect(passed).toBeGreaterThanOrEqual(100 - 2 * batchFor(100));
        expect((await a.take("k:1", limit)).ok).toBe(false);
        clock.advance(60_000);
        expect((await a.take("k:1", limit)).ok).toBe(true);
      } finally {
        await db.cleanup();
      }
    },
  );

  it("is exact for small limits and reports remaining and reset", async () => {
    const clock = testClock(new Date("2026-11-22T12:00:10Z"));
    const l = createRateLimiter(memoryRateLimitStore(), clock.now, { batched: true });
    const small = { max: 3, windowMs: 60_000 };
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await l.take("x", small));
    expect(seen.map((d) => d.ok)).toEqual([true, true, true, false]);
    expect(seen[0]).toMatchObject({ limit: 3, remaining: 2, resetSec: 50 });
  });
});
