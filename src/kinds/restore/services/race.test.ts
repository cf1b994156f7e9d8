/**
 * Start and cancel racing on one job through the conditional moves: exactly one wins, and the
 * money matches the winner. The negative control shows a read-then-write would let both win.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../../../test/app.js";
import { balanceOf } from "../../../../test/restore/helpers.js";
import { restoreFeature } from "../kind.js";
import { findJob, moveRestore } from "./store.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ features: [restoreFeature({ noExecutor: true })] });
});
afterAll(async () => {
  await t.close();
});

async function paidJob(key: string) {
  const res = await t.call("POST", "/cloud/jobs", {
    key,
    body: {
      duration_sec: 30,
      quality: "faithful",
      filename: "a.mp4",
      content_type: "video/mp4",
      size: 10,
    },
  });
  if (res.status !== 200) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.job.id as string;
}

const start = (id: string) => moveRestore(t.deps.db, id, "start", t.clock.now());
const cancel = (id: string) => moveRestore(t.deps.db, id, "cancel", t.clock.now());

describe("start vs cancel", () => {
  it("has exactly one winner per job and refunds only when cancel won", async () => {
    const { key, walletId } = await t.newWallet(20 * 299);
    // Concurrent creates on one wallet: each charge serialises on the wallet row, none deadlocks.
    const ids = await Promise.all(Array.from({ length: 20 }, () => paidJob(key)));
    expect(await balanceOf(t, walletId)).toBe(0);
    const outcomes = await Promise.all(
      ids.map(async (id) => {
        const tries = await Promise.all(
          Array.from({ length: 6 }, (_, i) => (i % 2 ? cancel(id) : start(id))),
        );
        return tries.filter(Boolean).length;
      }),
    );
    expect(outcomes.every((n) => n === 1)).toBe(true);
    let cancelled = 0;
    for (const id of ids) {
      const row = await findJob(t.deps.db, id);
      expect(["processing", "cancelled"]).toContain(row?.status);
      if (row?.status === "cancelled") cancelled++;
    }
    expect(await balanceOf(t, walletId)).toBe(cancelled * 299);
  });

  it("negative control: read-then-write lets several callers believe they won", async () => {
    const { key } = await t.newWallet(299);
    const id = await paidJob(key);
    const naive = async () => {
      const row = await findJob(t.deps.db, id);
      if (row?.status !== "awaiting_upload") return false;
      await t.deps.db
        .updateTable("restore_jobs")
        .set({ status: "cancelled" })
        .where("id", "=", id)
        .execute();
      return true;
    };
    const wins = (await Promise.all(Array.from({ length: 6 }, naive))).filter(Boolean).length;
    expect(wins).toBeGreaterThan(1);
  });
});
