/** The console's own housekeeping: its sessions are purged by its feature, not by core tasks. */
import { describe, expect, it } from "vitest";
import { createTestApp } from "../../test/app.js";
import { createLogger } from "../logger.js";
import { consoleFeature } from "./console.js";

describe("console feature", () => {
  it("its background task purges console sessions that have expired, and keeps live ones", async () => {
    const t = await createTestApp();
    const lines: string[] = [];
    try {
      const { walletId } = await t.newWallet();
      const now = t.clock.now();
      const session = (id: string, expiresAt: Date) => ({
        id_hash: id,
        wallet_id: walletId,
        created_at: now,
        last_seen_at: now,
        expires_at: expiresAt,
      });
      await t.deps.db
        .insertInto("web_sessions")
        .values([
          session("gone", new Date(now.getTime() - 1000)),
          session("live", new Date(now.getTime() + 3600_000)),
        ])
        .execute();
      const log = createLogger("info", {}, (line) => lines.push(line));
      const feature = await consoleFeature({ purgeEveryMs: 3600_000 })({ ...t.deps, log });
      await (await feature.start?.())?.stop();
      const rows = await t.deps.db.selectFrom("web_sessions").select("id_hash").execute();
      expect(rows.map((r) => r.id_hash)).toEqual(["live"]);
      expect(lines.some((l) => JSON.parse(l).msg === "expired web sessions purged")).toBe(true);
    } finally {
      await t.close();
    }
  });
});
