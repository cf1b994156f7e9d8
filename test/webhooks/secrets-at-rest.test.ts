/**
 * Webhook secrets at rest, in logs and on the wire: stored only sealed (another SIGNING_SECRET
 * cannot open them), never in a log line at debug level through registration, reads, rotation
 * and deliveries; a delivery carries no cookie or key. (The access checks: access.test.ts.)
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { SECRET_PURPOSE } from "../../src/services/webhooks/secrets.js";
import { createSigner } from "../../src/signing.js";
import { ADMIN_TOKEN } from "../app.js";
import { jobBody } from "../restore/helpers.js";
import { logLines, mine, owner, settled, setUpAccessApp, t, video } from "./access-fixture.js";

setUpAccessApp();

describe("secrets at rest, in logs and on the wire", () => {
  it("are stored only sealed, never logged, and deliveries send no cookie or key", async () => {
    const a = await owner(mine);
    const from = mine.received.length;
    // Traffic that touches every secret: a credit (endpoint), a job with its own URL (default
    // secret), a test event, a rotation.
    await t.call("POST", `/admin/wallets/${a.walletId}/credit`, {
      key: ADMIN_TOKEN,
      body: { amount_cents: 100, reason: "test" },
    });
    const created = await t.call("POST", "/cloud/jobs", {
      key: a.key,
      body: jobBody(video, { webhook_url: mine.url }),
    });
    await t.call("POST", `/cloud/jobs/${created.body.job.id}/cancel`, { key: a.key });
    await t.call("POST", `/wallet/webhooks/${a.endpointId}/test`, { key: a.key });
    await settled(created.body.job.id);
    const got = (await mine.waitFor(from + 4)).slice(from);
    const rotated = (await t.call("POST", "/wallet/webhook-secret/rotate", { key: a.key })).body
      .secret as string;
    const secrets = [a.endpointSecret, a.secret, rotated];
    // The base64 key inside each whsec_ secret: what an HMAC needs.
    const material = secrets.flatMap((s) => [s, s.slice("whsec_".length)]);

    // At rest: no row of any webhook table holds a secret; the sealed values open only with
    // this server's SIGNING_SECRET.
    for (const table of [
      "webhook_secrets",
      "webhook_endpoints",
      "job_webhooks",
      "webhook_events",
      "webhook_deliveries",
      "webhook_attempts",
      "wallets",
    ]) {
      const rows = await sql<{
        r: unknown;
      }>`SELECT row_to_json(x) AS r FROM ${sql.table(table)} x`.execute(t.deps.db);
      const text = JSON.stringify(rows.rows);
      for (const m of material) expect(text, table).not.toContain(m);
    }
    const sealedDefault = await t.deps.db
      .selectFrom("webhook_secrets")
      .select("sealed")
      .where("wallet_id", "=", a.walletId)
      .executeTakeFirstOrThrow();
    const sealedEndpoint = await t.deps.db
      .selectFrom("webhook_endpoints")
      .select("secret_sealed")
      .where("id", "=", a.endpointId)
      .executeTakeFirstOrThrow();
    const other = createSigner("another-signing-secret-0123456789abcdef");
    expect(other.open(SECRET_PURPOSE, sealedDefault.sealed)).toBeNull();
    expect(other.open(SECRET_PURPOSE, sealedEndpoint.secret_sealed)).toBeNull();
    expect(t.deps.signer.open(SECRET_PURPOSE, sealedDefault.sealed)?.plain).toBe(rotated);
    expect(t.deps.signer.open(SECRET_PURPOSE, sealedEndpoint.secret_sealed)?.plain).toBe(
      a.endpointSecret,
    );

    // In logs: the access log of every request above, the delivery loop's lines.
    expect(logLines.length).toBeGreaterThan(10);
    const logs = logLines.join("\n");
    expect(logs).toContain("/wallet/webhook-secret");
    for (const m of material) expect(logs).not.toContain(m);

    // On the wire: the Standard Webhooks headers, and no credential of any kind.
    for (const r of got) {
      expect(Object.keys(r.headers)).toEqual(
        expect.arrayContaining(["webhook-id", "webhook-timestamp", "webhook-signature"]),
      );
      for (const h of ["authorization", "cookie", "proxy-authorization", "x-api-key"]) {
        expect(r.headers[h], h).toBeUndefined();
      }
      const raw = JSON.stringify(r.headers) + r.body;
      for (const m of [...material, a.key, a.agent.key]) expect(raw).not.toContain(m);
    }
  });
});
