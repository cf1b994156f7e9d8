/**
 * The purge of finished purchase approvals (housekeeping): approved, declined and expired ones
 * older than 30 days go; pending ones still open and recent decisions stay.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { purgeOldApprovals } from "../../src/services/approvals-purge.js";
import { createTestApp, type TestApp } from "../app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ features: [restoreFeature({ noExecutor: true })] });
});
afterAll(async () => {
  await t.close();
});

const BODY = {
  duration_sec: 2,
  quality: "faithful",
  filename: "a.mp4",
  content_type: "video/mp4",
  size: 1000,
};

/** A pending approval of the asking key `key`, for a restore of `filename`. */
async function ask(key: string, filename: string): Promise<string> {
  const res = await t.call("POST", "/cloud/jobs", { key, body: { ...BODY, filename } });
  expect(res.body.code).toBe("agreement_required");
  return res.body.approval_id as string;
}

const DAY = 86_400_000;

/** Moves an approval's dates `days` into the past, as if asked (and decided) then. */
async function age(id: string, days: number) {
  const ms = days * DAY;
  await sql`UPDATE purchase_approvals SET
      created_at = created_at - ${ms} * interval '1 millisecond',
      expires_at = expires_at - ${ms} * interval '1 millisecond',
      decided_at = decided_at - ${ms} * interval '1 millisecond'
    WHERE id = ${id}`.execute(t.deps.db);
}

describe("purge of finished approvals", () => {
  it("deletes decided and expired ones past 30 days, keeps pending and recent ones", async () => {
    const w = await t.newWallet(5000);
    const agent = await t.newAgentKey(w.key, 3000, { askBeforeSpending: true });
    const decide = (id: string, decision: string) =>
      t.call("POST", `/approvals/${id}/decision`, { key: w.key, body: { decision } });

    const oldApproved = await ask(agent.key, "1.mp4");
    const oldDeclined = await ask(agent.key, "2.mp4");
    const oldExpired = await ask(agent.key, "3.mp4");
    const recentDeclined = await ask(agent.key, "4.mp4");
    const pending = await ask(agent.key, "5.mp4");
    expect((await decide(oldApproved, "approve")).status).toBe(200);
    expect((await decide(oldDeclined, "decline")).status).toBe(200);
    expect((await decide(recentDeclined, "decline")).status).toBe(200);
    await sql`UPDATE purchase_approvals SET status = 'expired' WHERE id = ${oldExpired}`.execute(
      t.deps.db,
    );
    for (const id of [oldApproved, oldDeclined, oldExpired]) await age(id, 31);
    await age(recentDeclined, 29);

    expect(await purgeOldApprovals(t.deps)).toBe(3);
    const left = await t.deps.db
      .selectFrom("purchase_approvals")
      .select(["id", "status"])
      .where("agent_key_id", "=", agent.id)
      .orderBy("id")
      .execute();
    expect(left.map((r) => r.id).sort()).toEqual([pending, recentDeclined].sort());
    expect(left.find((r) => r.id === pending)?.status).toBe("pending");
    // Nothing more to do on a second pass.
    expect(await purgeOldApprovals(t.deps)).toBe(0);
    // The owner's list no longer shows them; the open question is still decidable.
    expect((await decide(pending, "approve")).status).toBe(200);
    expect((await t.call("GET", `/approvals/${oldApproved}`, { key: w.key })).status).toBe(404);
  });
});
