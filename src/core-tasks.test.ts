/** Housekeeping: what a day-old idempotency record or rate-limit window leaves behind. */
import { describe, expect, it } from "vitest";
import { createTestApp } from "../test/app.js";
import { startCoreTasks } from "./core-tasks.js";
import { createLogger } from "./logger.js";

describe("core tasks", () => {
  it("purge rate-limit windows that ended a day ago, on either database", async () => {
    const t = await createTestApp();
    const lines: string[] = [];
    try {
      const limit = { max: 5, windowMs: 60_000 };
      await t.deps.rateLimiter.take("key:old", limit);
      t.clock.advance(25 * 3600_000);
      await t.deps.rateLimiter.take("key:fresh", limit);
      const log = createLogger("info", {}, (line) => lines.push(line));
      await startCoreTasks({ ...t.deps, log }, 3600_000).stop();
      const purged = lines
        .map((l) => JSON.parse(l))
        .find((l) => l.msg === "rate-limit windows purged");
      expect(purged?.records).toBe(1);
      if (t.database.backend === "postgres") {
        const rows = await t.deps.db.selectFrom("rate_limits").select("bucket").execute();
        expect(rows.map((r) => r.bucket)).toEqual(["key:fresh:60000"]);
      }
    } finally {
      await t.close();
    }
  });
});
