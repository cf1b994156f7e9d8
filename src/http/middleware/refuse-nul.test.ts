/** NUL characters are refused at the edge (they used to reach PostgreSQL and answer 500). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createTestApp, type TestApp } from "../../../test/app.js";
import { FEATURES } from "../../features.js";

let t: TestApp;
let key: string;
let walletId: string;
beforeAll(async () => {
  t = await createTestApp({ features: FEATURES });
  ({ key, walletId } = await t.newWallet(10_000));
});
afterAll(async () => {
  await t.close();
});

describe("NUL characters", () => {
  it("in any {id} of any route: 404, never 500", async () => {
    const doc = (await t.call("GET", "/openapi.json")).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    let checked = 0;
    for (const [p, item] of Object.entries(doc.paths)) {
      if (!p.includes("{")) continue;
      for (const method of Object.keys(item)) {
        for (const id of ["%00", "rj_%00", "a%2500b"]) {
          const res = await t.call(method.toUpperCase(), p.replace(/\{[^}]+\}/g, id), {
            key,
            body: method === "post" ? {} : undefined,
          });
          expect(res.status, `${method} ${p} ${id}`).toBe(404);
          expect(typeof res.body.detail).toBe("string");
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("in a body field: 400 naming the field, and nothing stored", async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const cases: [string, string, Record<string, unknown>, Record<string, string>, string][] = [
      ["POST", "/wallet/keys", { label: "a\u0000b", limit_cents: 5 }, {}, "label"],
      [
        "POST",
        "/cloud/jobs",
        { duration_sec: 5, filename: "v\u0000.mp4", content_type: "video/mp4", size: 9 },
        {},
        "filename",
      ],
      ["POST", "/motion/jobs", { prompt: "waves\u0000", content_type: "image/png" }, {}, "prompt"],
      [
        "POST",
        `/admin/wallets/${walletId}/credit`,
        { amount_cents: 5, reason: "x\u0000" },
        admin,
        "reason",
      ],
      ["POST", "/wallet", { email: "a\u0000@example.com" }, {}, "email"],
    ];
    const before = await counts();
    for (const [method, p, body, headers, field] of cases) {
      const res = await t.call(method, p, {
        key: headers.authorization ? undefined : key,
        body,
        headers,
      });
      expect(res.status, p).toBe(400);
      expect(res.body.detail).toMatch(new RegExp(`^${field}: must not contain NUL`));
    }
    expect(await counts()).toEqual(before);
  });

  it("in the query string: 400", async () => {
    const res = await t.call("GET", "/motion/quote?size=480p%00");
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/NUL/);
  });
});

async function counts() {
  const n = async (table: "wallets" | "agent_keys" | "ledger_entries" | "restore_jobs" | "clips") =>
    Number(
      (
        await t.deps.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return Promise.all([
    n("wallets"),
    n("agent_keys"),
    n("ledger_entries"),
    n("restore_jobs"),
    n("clips"),
  ]);
}
