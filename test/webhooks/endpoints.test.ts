/**
 * Webhook endpoints a wallet owner registers: the wallet's events (credits, an agent key
 * reaching its limit) and every job's, signed with the endpoint's own secret; the SSRF guard at
 * registration and again at delivery; the test event; deletion; and an endpoint failing for the
 * whole retry window disabled with the reason the owner reads.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhooksFeature } from "../../src/features/webhooks.js";
import { restoreFeature, restoreKind } from "../../src/kinds/restore/kind.js";
import { ADMIN_TOKEN, createTestApp, type TestApp } from "../app.js";
import { jobBody } from "../restore/helpers.js";
import { type Receiver, startReceiver } from "./receiver.js";

const WINDOW_MS = 4000;
const TIMING = { timeoutMs: 2500, baseMs: 100, capMs: 1000, windowMs: WINDOW_MS };

let t: TestApp;
let receiver: Receiver;
let stop: () => Promise<void>;
/** What hooks.example.com resolves to (the delivery-time SSRF check reads it). */
let exampleAddress = "93.184.216.34";

beforeAll(async () => {
  receiver = await startReceiver();
  const lookup = async (host: string) =>
    host === "hooks.example.com" ? [{ address: exampleAddress, family: 4 as const }] : [];
  t = await createTestApp({
    env: { WEBHOOK_ALLOW_HTTP_LOOPBACK: "true" },
    platform: (p) => ({ ...p, clock: () => new Date() }),
    features: [
      restoreFeature({ noExecutor: true }),
      webhooksFeature({
        kinds: [restoreKind],
        timing: TIMING,
        leaseMs: 20_000,
        pollMs: 50,
        lookup,
      }),
    ],
  });
  const task = await t.features.find((f) => f.name === "webhooks")?.start?.();
  stop = async () => task?.stop();
});
afterAll(async () => {
  await stop();
  await receiver.close();
  await t.close();
});

async function register(key: string, body: Record<string, unknown>) {
  return t.call("POST", "/wallet/webhooks", { key, body });
}

async function payloads(secret: string, from: number, n: number) {
  const got = (await receiver.waitFor(from + n, 60_000)).slice(from);
  return got.map(
    // biome-ignore lint/suspicious/noExplicitAny: a webhook payload or JSON answer read field by field in assertions
    (r) => new Webhook(secret).verify(r.body, r.headers) as { type: string; data: any },
  );
}

describe("registering an endpoint", () => {
  it("refuses private, loopback-by-name, metadata and plain-http public URLs, naming the field", async () => {
    const { key } = await t.newWallet();
    for (const url of [
      "https://10.0.0.7/hook",
      "https://169.254.169.254/latest",
      "https://localhost:8443/hook",
      "http://hooks.example.com/hook",
      "ftp://hooks.example.com/",
    ]) {
      const res = await register(key, { url });
      expect(res.status, url).toBe(400);
      expect(res.body.detail, url).toMatch(/^url: /);
    }
    const list = await t.call("GET", "/wallet/webhooks", { key });
    expect(list.body.endpoints).toEqual([]);
  });

  it("is for the wallet key only, and shows the secret once", async () => {
    const { key } = await t.newWallet(1000);
    const agent = await t.newAgentKey(key, 500, { askBeforeSpending: false });
    expect((await register(agent.key, { url: receiver.url })).status).toBe(403);
    const res = await register(key, { url: receiver.url, description: "mine" });
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.endpoint).toMatchObject({
      status: "enabled",
      events: ["job.completed", "wallet.credited", "key.limit_reached"],
    });
    const list = await t.call("GET", "/wallet/webhooks", { key });
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
    const row = await t.deps.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(res.body.secret.slice(6));
  });
});

describe("an endpoint's events", () => {
  it("gets wallet.credited, key.limit_reached (both reasons) and job.completed of an agent key's job", async () => {
    const { key, walletId } = await t.newWallet(0);
    const ep = await register(key, { url: receiver.url });
    const secret = ep.body.secret as string;
    const from = receiver.received.length;
    const credited = await t.call("POST", `/admin/wallets/${walletId}/credit`, {
      key: ADMIN_TOKEN,
      body: { amount_cents: 2000, reason: "test" },
    });
    expect(credited.status).toBe(200);
    const agent = await t.newAgentKey(key, 300, { askBeforeSpending: false });
    const video = { sizeBytes: 1000 };
    const refused = await t.call("POST", "/cloud/jobs", {
      key: agent.key,
      body: jobBody(video, { quality: "enhanced" }),
    });
    expect(refused.body.code).toBe("over_limit");
    const again = await t.call("POST", "/cloud/jobs", {
      key: agent.key,
      body: jobBody(video, { quality: "enhanced" }),
    });
    expect(again.body.code).toBe("over_limit");
    const ok = await t.call("POST", "/cloud/jobs", { key: agent.key, body: jobBody(video) });
    expect(ok.status).toBe(200);
    const cancelled = await t.call("POST", `/cloud/jobs/${ok.body.job.id}/cancel`, {
      key: agent.key,
    });
    expect(cancelled.body.job.status).toBe("cancelled");
    const got = await payloads(secret, from, 4);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.length - from).toBe(4); // the repeated refusal added nothing
    const byType = (type: string) => got.filter((p) => p.type === type);
    expect(byType("wallet.credited")[0]?.data).toMatchObject({
      wallet_id: walletId,
      amount_cents: 2000,
      balance_cents: 2000,
    });
    expect(
      byType("key.limit_reached")
        .map((p) => p.data.reason)
        .sort(),
    ).toEqual(["below_smallest_price", "refused_over_limit"]);
    expect(byType("job.completed")[0]?.data).toMatchObject({
      id: ok.body.job.id,
      status: "cancelled",
    });
  });

  it("sends a test event on request, and nothing once deleted", async () => {
    const { key } = await t.newWallet(0);
    const ep = await register(key, { url: receiver.url });
    const id = ep.body.endpoint.id as string;
    const from = receiver.received.length;
    const test = await t.call("POST", `/wallet/webhooks/${id}/test`, { key });
    expect(test.status).toBe(200);
    const [payload] = await payloads(ep.body.secret, from, 1);
    expect(payload?.type).toBe("webhook.test");
    expect(receiver.received.at(-1)?.id).toBe(test.body.event_id);
    const deleted = await t.call("POST", `/wallet/webhooks/${id}/delete`, { key });
    expect(deleted.status).toBe(200);
    expect((await t.call("POST", `/wallet/webhooks/${id}/test`, { key })).status).toBe(404);
    expect((await t.call("GET", "/wallet/webhooks", { key })).body.endpoints).toEqual([]);
  });
});

describe("delivery-time checks and disabling", () => {
  it("refuses at delivery a host that moved to a private address, then disables the endpoint after the window", async () => {
    const { key, walletId } = await t.newWallet(0);
    const ep = await register(key, {
      url: "https://hooks.example.com/hook",
      events: ["wallet.credited"],
    });
    expect(ep.status).toBe(200);
    exampleAddress = "10.1.2.3"; // DNS now points inside: no attempt may connect there
    await t.call("POST", `/admin/wallets/${walletId}/credit`, {
      key: ADMIN_TOKEN,
      body: { amount_cents: 100, reason: "test" },
    });
    // biome-ignore lint/suspicious/noExplicitAny: a webhook payload or JSON answer read field by field in assertions
    let endpoint: any;
    for (let i = 0; i < 200; i++) {
      endpoint = (await t.call("GET", "/wallet/webhooks", { key })).body.endpoints[0];
      if (endpoint.status === "disabled") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(endpoint.status).toBe("disabled");
    expect(endpoint.disabled_reason).toMatch(/Every delivery failed/);
    expect(endpoint.disabled_reason).toMatch(/private address \(10\.1\.2\.3\)/);
    const [delivery] = endpoint.deliveries;
    expect(delivery.state).toBe("failed");
    expect(delivery.attempts).toBeGreaterThan(1);
    expect(delivery.last_status_code).toBeNull();
    // A disabled endpoint takes no test event (its delivery would wait forever).
    const test = await t.call("POST", `/wallet/webhooks/${endpoint.id}/test`, { key });
    expect(test.status).toBe(409);
    expect(test.body).toMatchObject({ code: "conflict" });
    expect(test.body.detail).toMatch(/disabled.*register it again/);
  });
});
