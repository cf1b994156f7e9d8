/** CoreDeps for tests: a real database, a controllable clock, random ids, no log noise. */
import { randomId } from "../src/domain/ids.js";
import { silentLogger } from "../src/logger.js";
import type { CoreDeps } from "../src/services/deps.js";
import type { TestDatabase } from "./db.js";

export interface TestClock {
  now: () => Date;
  advance(ms: number): void;
  set(date: Date): void;
}

export function testClock(start = new Date("2026-11-22T12:00:00Z")): TestClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (ms) => {
      current += ms;
    },
    set: (date) => {
      current = date.getTime();
    },
  };
}

export function coreDeps(database: TestDatabase, clock = testClock()): CoreDeps {
  return { db: database.db, clock: clock.now, ids: randomId, log: silentLogger };
}
