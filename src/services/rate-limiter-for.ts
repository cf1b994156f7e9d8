/** The rate limiter a deployment uses: shared counters in PostgreSQL, in-process ones on PGlite. */
import type { Database } from "../db/database.js";
import {
  createRateLimiter,
  memoryRateLimitStore,
  type RateLimiter,
  sqlRateLimitStore,
} from "./rate-limit.js";

/** The rate limiter for a database (its counts shared by every node). */
export function rateLimiterFor(
  database: Database,
  clock: () => Date = () => new Date(),
): RateLimiter {
  return database.backend === "postgres"
    ? createRateLimiter(sqlRateLimitStore(database.db), clock, { batched: true })
    : createRateLimiter(memoryRateLimitStore(), clock);
}
