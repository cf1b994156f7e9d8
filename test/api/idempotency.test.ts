/**
 * Idempotency-Key replays only ever go back to the caller who made the request, and no key
 * secret is stored anywhere (the replay of a key creation is sealed for its caller).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import {
  claimIdempotency,
  IDEMPOTENCY_IN_FLIGHT_MS,
  IDEMPOTENCY_TTL_MS,
  idempotencyScope,
  purgeIdempotencyRecords,
} from "../../src/services/idempotency.js";
import { createTestApp, type TestApp } from "../app.js";
import { jobBody, makeVideo } from "../restore/helpers.js";

let t: TestApp;
let video: { path: string; sizeBytes: number };
beforeAll(async () => {
  t = await createTestApp({ features: [restoreFeature({ noExecutor: true })] });
  video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-idem-")), 1);
});
afterAll(async () => {
  await t.close();
});

const records = () => t.deps.db.selectFrom("idempotency_keys").selectAll().execute();

describe("anonymous requests", () => {
  it("are never replayed: a second POST /wallet with the same key gets its own wallet key", async () => {
    const headers = { "idempotency-key": "same-key-for-everyone" };
    const first = await t.call("POST", "/wallet", { headers, body: {} });
    const second = await t.call("POST", "/wallet", { headers, body: {} });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.key).not.toBe(first.body.key);
    expect(second.body.wallet.wallet_id).not.toBe(first.body.wallet.wallet_id);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
  });

  it("are never replayed for restore jobs paid by checkout either", async () => {
    const headers = { "idempotency-key": "anon-job" };
    const body = jobBody(video, { email: "a@example.com" });
    const first = await t.call("POST", "/cloud/jobs", { headers, body });
    const second = await t.call("POST", "/cloud/jobs", { headers, body });
    expect(second.body.job.id).not.toBe(first.body.job.id);
    expect(second.body.upload_url).not.toBe(first.body.upload_url);
  });
});

describe("keyed requests", () => {
  it("replay a key creation to its caller only, and store no secret in any readable form", async () => {
    const a = await t.newWallet(0);
    const b = await t.newWallet(0);
    const headers = { "idempotency-key": "make-key" };
    const body = { limit_cents: 5 };
    const first = await t.call("POST", "/wallet/keys", { key: a.key, headers, body });
    const replay = await t.call("POST", "/wallet/keys", { key: a.key, headers, body });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.key).toBe(first.body.key);
    // Another wallet's caller with the same Idempotency-Key and body runs its own request.
    const other = await t.call("POST", "/wallet/keys", { key: b.key, headers, body });
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(other.body.key).not.toBe(first.body.key);
    expect(other.body.agent_key.id).not.toBe(first.body.agent_key.id);

    const dump = JSON.stringify(await records());
    for (const secret of [first.body.key, other.body.key, a.key, b.key]) {
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(secret.slice(4, 24));
    }
    expect(dump).not.toMatch(/pak_|pmk_/);
  });

  it("store nothing for an unknown key (401) so a garbage credential fills no table", async () => {
    const before = (await records()).length;
    const res = await t.call("POST", "/wallet/keys", {
      key: "pmk_0000000000000000000000000000000000000000000",
      headers: { "idempotency-key": "nope" },
      body: { limit_cents: 5 },
    });
    expect(res.status).toBe(401);
    expect((await records()).length).toBe(before);
  });

  it("let a request that died in flight be retried after the lease, not answer 409 for a day", async () => {
    const { key } = await t.newWallet(0);
    const credential = `Bearer ${key}`;
    const stale = new Date(t.clock.now().getTime() - IDEMPOTENCY_IN_FLIGHT_MS - 1000);
    await t.deps.db
      .insertInto("idempotency_keys")
      .values({
        scope: idempotencyScope(credential),
        idem_key: "crashed",
        request_hash: "whatever",
        created_at: stale,
      })
      .execute();
    const headers = { "idempotency-key": "crashed" };
    const res = await t.call("POST", "/wallet/keys", { key, headers, body: { limit_cents: 3 } });
    expect(res.status).toBe(200);
    // A fresh in-flight record is still a 409.
    await sql`UPDATE idempotency_keys SET status_code = NULL, created_at = ${t.clock.now()}
      WHERE idem_key = 'crashed'`.execute(t.deps.db);
    const busy = await t.call("POST", "/wallet/keys", { key, headers, body: { limit_cents: 3 } });
    expect(busy.status).toBe(409);
    expect(busy.body.detail).toMatch(/in progress/);
    expect(busy.body.code).toBe("idempotency_in_flight");
  });

  it("are purged after 24 hours", async () => {
    const { key } = await t.newWallet(0);
    await t.call("POST", "/wallet/keys", {
      key,
      headers: { "idempotency-key": "old" },
      body: { limit_cents: 2 },
    });
    const scope = idempotencyScope(`Bearer ${key}`);
    t.clock.advance(IDEMPOTENCY_TTL_MS + 60_000);
    try {
      expect(await purgeIdempotencyRecords(t.deps)).toBeGreaterThanOrEqual(1);
      const left = await t.deps.db
        .selectFrom("idempotency_keys")
        .select("idem_key")
        .where("scope", "=", scope)
        .execute();
      expect(left).toEqual([]);
    } finally {
      t.clock.advance(-(IDEMPOTENCY_TTL_MS + 60_000));
    }
  });

  it("refuses a malformed Idempotency-Key with 400", async () => {
    await expect(
      claimIdempotency(t.deps, { credential: "x", key: "has space", fingerprint: "f" }),
    ).rejects.toThrow(/printable ASCII/);
  });
});
