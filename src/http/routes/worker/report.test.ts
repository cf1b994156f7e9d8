/** The worker API's reports: unknown and malformed job ids are 404, never 500 or a silent ok; a NUL is a 400. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../../../test/app.js";
import { FEATURES } from "../../../features.js";

const TOKEN = "worker-token-0123456789";
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ features: FEATURES, env: { WORKER_TOKEN: TOKEN } });
});
afterAll(async () => {
  await t.close();
});

const report = (id: string, what: string, body: Record<string, unknown>) =>
  t.call("POST", `/worker/jobs/${id}/${what}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    body: { worker_id: "w1", ...body },
  });

describe("worker reports", () => {
  const bodies: [string, Record<string, unknown>][] = [
    ["heartbeat", { kind: "restore", progress: 0.5 }],
    ["complete", { kind: "restore", result: { outputBytes: 1, meta: {} } }],
    ["fail", { kind: "clip", failure: { kind: "final", message: "broken" } }],
    ["release", { kind: "clip" }],
  ];
  it.each(bodies)(
    "%s on an unknown or malformed job id answers 404 with a detail",
    async (what, body) => {
      for (const id of [
        "rj_0000000000000000000000",
        "clip_unknown",
        "x".repeat(200),
        "%00",
        "%C0%AF",
      ]) {
        const res = await report(id, what, body);
        expect(res.status, `${what} ${id}`).toBe(404);
        expect(typeof res.body.detail).toBe("string");
      }
    },
  );

  it("refuses a NUL in any field with 400 naming it, before the database sees it (fuzz seed 777777 on PostgreSQL: 500)", async () => {
    for (const [what, body] of bodies) {
      const res = await report("%E2%80%AEevil", what, { ...body, worker_id: "\u0000" });
      expect(res.status, what).toBe(400);
      expect(res.body.detail, what).toMatch(/worker_id/);
    }
  });

  it("refuses a kind this server does not run with 400", async () => {
    const res = await report("rj_0000000000000000000000", "complete", {
      kind: "teleport",
      result: { outputBytes: 1, meta: {} },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^kind:/);
  });
});
