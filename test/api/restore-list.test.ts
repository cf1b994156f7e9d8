import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { createTestApp, type TestApp } from "../app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ features: [restoreFeature({ noExecutor: true })] });
});
afterAll(async () => {
  await t.close();
});

const body = (name: string) => ({
  duration_sec: 10,
  quality: "faithful",
  filename: name,
  content_type: "video/mp4",
  size: 1000,
});

async function createJob(key: string, name: string, advanceMs = 1000): Promise<string> {
  t.clock.advance(advanceMs);
  const res = await t.call("POST", "/cloud/jobs", { key, body: body(name) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.job.id;
}

const ids = (res: { body: { jobs: { id: string }[] } }) => res.body.jobs.map((j) => j.id);

describe("GET /cloud/jobs", () => {
  it("lists the wallet's jobs newest first; an agent key sees only its own; other wallets none", async () => {
    const owner = await t.newWallet(10_000);
    const agent = await t.newAgentKey(owner.key, 5_000);
    const other = await t.newWallet(10_000);
    const a = await createJob(owner.key, "a.mp4");
    const b = await createJob(agent.key, "b.mp4");
    const c = await createJob(owner.key, "c.mp4");
    const foreign = await createJob(other.key, "x.mp4");

    const mine = await t.call("GET", "/cloud/jobs", { key: owner.key });
    expect(mine.status).toBe(200);
    expect(ids(mine)).toEqual([c, b, a]);
    expect(mine.body.next_cursor).toBeNull();
    expect(mine.body.jobs[0]).toMatchObject({ status: "awaiting_upload", filename: "c.mp4" });

    const agents = await t.call("GET", "/cloud/jobs", { key: agent.key });
    expect(ids(agents)).toEqual([b]);

    const others = await t.call("GET", "/cloud/jobs", { key: other.key });
    expect(ids(others)).toEqual([foreign]);
  });

  it("pages with limit and next_cursor, including jobs created in the same millisecond", async () => {
    const { key } = await t.newWallet(10_000);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push(await createJob(key, `p${i}.mp4`, i === 3 ? 0 : 1000));
    // Jobs 2 and 3 share a created_at: the id breaks the tie, and no page loses or repeats one.
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const q: string = cursor ? `?limit=2&cursor=${cursor}` : "?limit=2";
      const res = await t.call("GET", `/cloud/jobs${q}`, { key });
      expect(res.status).toBe(200);
      expect(res.body.jobs.length).toBeLessThanOrEqual(2);
      seen.push(...ids(res));
      cursor = res.body.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen)).toEqual(new Set(made));
    expect(seen[0]).toBe(made[4]);
    expect(seen[4]).toBe(made[0]);
  });

  it("refuses a bad limit or cursor with a detail naming the field, and no key with 401", async () => {
    const { key } = await t.newWallet(0);
    for (const q of ["?limit=0", "?limit=101", "?limit=two"]) {
      const res = await t.call("GET", `/cloud/jobs${q}`, { key });
      expect(res.status, q).toBe(400);
      expect(res.body.detail).toMatch(/^limit:/);
    }
    const bad = await t.call("GET", "/cloud/jobs?cursor=bm9wZQ", { key });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/^cursor:/);
    expect((await t.call("GET", "/cloud/jobs")).status).toBe(401);
    const empty = await t.call("GET", "/cloud/jobs", { key });
    expect(empty.body).toEqual({ jobs: [], next_cursor: null });
  });
});
