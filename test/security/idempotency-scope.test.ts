/**
 * Idempotency records belong to a verified principal only (issue 21, item 7), over real HTTP:
 * the routes that do not authenticate their caller (POST /wallet, a job's checkout, the OAuth
 * token endpoint) never store or replay, whatever `Authorization` says — two callers sending
 * the same `Idempotency-Key` with `Bearer undefined`, an empty bearer or a garbage bearer each
 * get their own answer, and the idempotency table stays empty. A verified key still does.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectedAppsFeature } from "../../src/features/connected-apps.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { createCode } from "../../src/oauth/tokens.js";
import { createConnectedApp } from "../../src/services/agent-keys.js";
import { pkce } from "../connected-apps/browserless.js";
import { jobBody, makeVideo } from "../restore/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";

let s: ServedApp;
let video: { path: string; sizeBytes: number };

beforeAll(async () => {
  s = await serveTestApp({
    features: [restoreFeature({ noExecutor: true }), paymentsFeature(), connectedAppsFeature()],
  });
  video = await makeVideo(mkdtempSync(path.join(tmpdir(), "kinora-idem-scope-")), 1);
});
afterAll(async () => {
  await s?.close();
});

const GUESSABLE = ["Bearer undefined", "Bearer ", "Bearer garbage-not-a-key-0123456789"];

async function post(
  p: string,
  headers: Record<string, string>,
  body: string | object = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const form = typeof body === "string";
  const res = await fetch(`${s.url}${p}`, {
    method: "POST",
    headers: {
      "content-type": form ? "application/x-www-form-urlencoded" : "application/json",
      ...headers,
    },
    body: form ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {}, headers: res.headers };
}

const recordCount = async () =>
  Number(
    (
      await s.t.deps.db
        .selectFrom("idempotency_keys")
        .select((e) => e.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("routes that do not authenticate never store or replay", () => {
  it("POST /wallet: two callers with the same Idempotency-Key and a guessable bearer get two wallets", async () => {
    for (const [i, authorization] of GUESSABLE.entries()) {
      const headers = { authorization, "idempotency-key": `wallet-${i}` };
      const first = await post("/wallet", headers);
      const second = await post("/wallet", headers);
      expect(first.status, authorization).toBe(200);
      expect(second.status, authorization).toBe(200);
      expect(second.body.key).not.toBe(first.body.key);
      expect(second.headers.get("idempotent-replayed")).toBeNull();
    }
    expect(await recordCount()).toBe(0);
  });

  it("a job's checkout: no record, no replay header, for every guessable bearer", async () => {
    const created = await post("/cloud/jobs", {}, jobBody(video, { email: "c@example.com" }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const job = created.body.job as { id: string };
    const put = await fetch(created.body.upload_url as string, {
      method: "PUT",
      headers: created.body.upload_headers as Record<string, string>,
      body: readFileSync(video.path),
    });
    expect(put.status).toBe(200);
    for (const authorization of GUESSABLE) {
      const headers = { authorization, "idempotency-key": "checkout-same" };
      const first = await post(`/cloud/jobs/${job.id}/checkout`, headers);
      const second = await post(`/cloud/jobs/${job.id}/checkout`, headers);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(second.status).toBe(200);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      expect(second.headers.get("idempotent-replayed")).toBeNull();
    }
    expect(await recordCount()).toBe(0);
  });

  it("POST /oauth/token ignores Idempotency-Key: a second exchange of the code is refused, not replayed", async () => {
    const redirectUri = "http://127.0.0.1:9/callback";
    const reg = await post(
      "/oauth/register",
      {},
      { client_name: "Idem", redirect_uris: [redirectUri] },
    );
    expect(reg.status).toBe(201);
    const wallet = await post("/wallet", {});
    const walletId = (wallet.body.wallet as { wallet_id: string }).wallet_id;
    for (const authorization of GUESSABLE) {
      const app = await createConnectedApp(s.t.deps, walletId, {
        clientId: reg.body.client_id as string,
        clientName: "Idem",
        redirectHost: "127.0.0.1",
        limitCents: 100,
        askBeforeSpending: true,
      });
      const { verifier, challenge } = pkce();
      const code = await createCode(s.t.deps, {
        clientId: reg.body.client_id as string,
        agentKeyId: app.id,
        redirectUri,
        codeChallenge: challenge,
        resource: `${s.url}/mcp`,
      });
      const form = new URLSearchParams({
        grant_type: "authorization_code",
        client_id: reg.body.client_id as string,
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        resource: `${s.url}/mcp`,
      }).toString();
      const headers = { authorization, "idempotency-key": "token-same" };
      const first = await post("/oauth/token", headers, form);
      const second = await post("/oauth/token", headers, form);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(String(first.body.access_token)).toMatch(/^kat_/);
      expect(second.status).toBe(400);
      expect(second.body.error).toBe("invalid_grant");
      expect(second.body.access_token).toBeUndefined();
    }
    expect(await recordCount()).toBe(0);
  });
});

describe("a verified principal", () => {
  it("still gets its replay (the control: records are kept when someone was authenticated)", async () => {
    const wallet = await post("/wallet", {});
    const headers = {
      authorization: `Bearer ${wallet.body.key}`,
      "idempotency-key": "verified",
    };
    const first = await post("/wallet/keys", headers, { limit_cents: 5 });
    const replay = await post("/wallet/keys", headers, { limit_cents: 5 });
    expect(first.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.key).toBe(first.body.key);
    expect(await recordCount()).toBe(1);
  });
});
