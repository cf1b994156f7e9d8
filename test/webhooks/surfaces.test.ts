/**
 * Webhooks on every surface and the delivery rules the other files do not reach, against a
 * served kinora and real receivers on 127.0.0.1:
 * - the additive create fields in OpenAPI; `webhook_url` on POST /motion/jobs (the payload is
 *   the clip as its REST read shows it) and on the MCP tools create_restore and make_clip,
 *   called through the official SDK client after tools/list;
 * - no retry on a 4xx other than 408/429, a redirect not followed, 408 retried;
 * - one receiver that never answers holds at most WEBHOOK_ENDPOINT_CONCURRENCY attempts and
 *   delays nobody else; once it has failed for the whole window it is disabled;
 * - an endpoint deleted while an attempt to it is in flight leaves nothing waiting;
 * - /metrics counts what happened: queued, delivered, retrying, failed, disabled.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { metricsFeature } from "../../src/features/metrics.js";
import { webhooksFeature } from "../../src/features/webhooks.js";
import { clipKind, clipsFeature } from "../../src/kinds/clips/kind.js";
import { restoreFeature, restoreKind } from "../../src/kinds/restore/kind.js";
import { ADMIN_TOKEN } from "../app.js";
import { stubClassifier } from "../clips/helpers.js";
import { call, connect, type Json, refusal } from "../mcp/helpers.js";
import { METRICS_TOKEN, scrape } from "../metrics/scrape.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { type Answer, type Receiver, startReceiver } from "./receiver.js";

// A never-answering receiver's attempt ends after timeoutMs; its endpoint is disabled once an
// attempt fails past the window (the second time-out).
const TIMING = { timeoutMs: 4000, baseMs: 50, capMs: 500, windowMs: 6000 };
const PER_ENDPOINT = 4;

let s: ServedApp;
let stop: () => Promise<void>;
const receivers: Receiver[] = [];

async function receiver(script: Answer[] = []) {
  const r = await startReceiver(script);
  receivers.push(r);
  return r;
}

beforeAll(async () => {
  s = await serveTestApp({
    env: {
      WEBHOOK_ALLOW_HTTP_LOOPBACK: "true",
      WEBHOOK_ENDPOINT_CONCURRENCY: String(PER_ENDPOINT),
      METRICS_TOKEN,
    },
    platform: (p) => ({ ...p, clock: () => new Date() }),
    features: [
      restoreFeature({ noExecutor: true }),
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
      mcpFeature(),
      metricsFeature(),
      webhooksFeature({
        kinds: [restoreKind, clipKind],
        timing: TIMING,
        leaseMs: 20_000,
        pollMs: 50,
      }),
    ],
  });
  const task = await s.t.features.find((f) => f.name === "webhooks")?.start?.();
  stop = async () => task?.stop();
});
afterAll(async () => {
  await stop?.();
  for (const r of receivers) await r.close();
  await s?.close();
});

const verify = (secret: string, r: { body: string; headers: Record<string, string> }) =>
  new Webhook(secret).verify(r.body, r.headers) as { type: string; data: Json };

async function defaultSecret(key: string) {
  return (await s.t.call("GET", "/wallet/webhook-secret", { key })).body.secret as string;
}

/** The endpoint's deliveries once none is pending any more. */
async function settledDeliveries(key: string, endpointId: string, ms = 30_000) {
  for (const until = Date.now() + ms; Date.now() < until; ) {
    const list = await s.t.call("GET", "/wallet/webhooks", { key });
    const ep = list.body.endpoints.find((e: { id: string }) => e.id === endpointId);
    const ds = ep?.deliveries ?? [];
    if (ds.length > 0 && ds.every((d: { state: string }) => d.state !== "pending")) return ds;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`deliveries of ${endpointId} still pending`);
}

describe("the create fields", () => {
  it("are additive and optional in OpenAPI, on both job kinds", async () => {
    const doc = (await s.t.call("GET", "/openapi.json")).body;
    const resolve = (schema: Json): Json =>
      schema?.$ref ? resolve(doc.components.schemas[schema.$ref.split("/").pop()]) : schema;
    for (const path of ["/cloud/jobs", "/motion/jobs"]) {
      const body = resolve(doc.paths[path].post.requestBody.content["application/json"].schema);
      expect(body.properties.webhook_url, path).toMatchObject({ type: "string" });
      expect(body.properties.webhook_events.items.enum, path).toEqual([
        "started",
        "progress",
        "completed",
      ]);
      expect(body.required ?? [], path).not.toContain("webhook_url");
      expect(body.required ?? [], path).not.toContain("webhook_events");
    }
    for (const path of ["/wallet/webhooks", "/wallet/webhook-secret"]) {
      const op = doc.paths[path].get;
      expect(op["x-wallet-key-only"], path).toBe(true);
    }
  });
});

describe("POST /motion/jobs with webhook_url", () => {
  it("sends the clip's events, signed with the wallet's secret; the payload is the REST read", async () => {
    const rx = await receiver();
    const { key } = await s.t.newWallet(1000);
    const secret = await defaultSecret(key);
    const refused = await s.t.call("POST", "/motion/jobs", {
      key,
      body: { prompt: "waves", content_type: "image/png", webhook_url: "https://192.168.1.9/h" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/^webhook_url: .*private address/);
    const created = await s.t.call("POST", "/motion/jobs", {
      key,
      body: {
        prompt: "waves",
        content_type: "image/png",
        webhook_url: rx.url,
        webhook_events: ["started", "completed"],
      },
    });
    expect(created.status).toBe(200);
    expect(created.body.job.webhook).toMatchObject({
      url: rx.url,
      events: ["started", "completed"],
    });
    const id = created.body.job.id as string;
    const cancelled = await s.t.call("POST", `/motion/jobs/${id}/cancel`, { key });
    expect(cancelled.body.job.status).toBe("cancelled");
    const [got] = await rx.waitFor(1);
    const payload = verify(secret, got as never);
    expect(payload.type).toBe("job.completed");
    const read = await s.t.call("GET", `/motion/jobs/${id}`, { key });
    expect(Object.keys(payload.data).sort()).toEqual(Object.keys(read.body.job).sort());
    expect(payload.data).toMatchObject({ id, status: "cancelled", prompt: "waves" });
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.received).toHaveLength(1); // never started: no started event
  });
});

describe("the MCP tools", () => {
  it("list webhook_url and webhook_events, refuse a private receiver, deliver to a good one", async () => {
    const rx = await receiver();
    const { key } = await s.t.newWallet(5000);
    const agent = await s.t.newAgentKey(key, 2000, { askBeforeSpending: false });
    const secret = await defaultSecret(key);
    const client = await connect(s.url, agent.key);
    try {
      const { tools } = await client.listTools();
      for (const name of ["create_restore", "make_clip"]) {
        const props = tools.find((t: Json) => t.name === name)?.inputSchema.properties;
        expect(props?.webhook_url, name).toBeDefined();
        expect(props?.webhook_events, name).toBeDefined();
      }
      const restore = { duration_sec: 10, filename: "a.mp4", content_type: "video/mp4" };
      const bad = await call(client, "create_restore", {
        ...restore,
        size: 1000,
        max_price_cents: 1000,
        webhook_url: "https://169.254.169.254/latest/meta-data",
      });
      expect(refusal(bad).detail).toMatch(/^webhook_url: /);
      const made = await call(client, "create_restore", {
        ...restore,
        size: 1000,
        max_price_cents: 1000,
        webhook_url: rx.url,
      });
      const jobId = made.structuredContent.job.id as string;
      expect(made.structuredContent.job.webhook).toMatchObject({ url: rx.url });
      const clip = await call(client, "make_clip", {
        prompt: "rain",
        content_type: "image/png",
        max_price_cents: 100,
        webhook_url: rx.url,
      });
      const clipId = clip.structuredContent.job.id as string;
      await call(client, "cancel_job", { job_id: jobId });
      await call(client, "cancel_job", { job_id: clipId });
      const got = await rx.waitFor(2);
      const ids = got.map((r) => verify(secret, r).data.id).sort();
      expect(ids).toEqual([jobId, clipId].sort());
    } finally {
      await client.close();
    }
  });
});

async function endpointAt(rx: Receiver) {
  const { key, walletId } = await s.t.newWallet(0);
  const ep = await s.t.call("POST", "/wallet/webhooks", {
    key,
    body: { url: rx.url, events: ["wallet.credited"] },
  });
  expect(ep.status).toBe(200);
  return { key, walletId, id: ep.body.endpoint.id as string, secret: ep.body.secret as string };
}

const credit = (walletId: string, cents = 100) =>
  s.t.call("POST", `/admin/wallets/${walletId}/credit`, {
    key: ADMIN_TOKEN,
    body: { amount_cents: cents, reason: "webhook test" },
  });

describe("answers that end a delivery", () => {
  it("a 4xx other than 408/429 fails it at once; a redirect is not followed; 408 is retried", async () => {
    const elsewhere = await receiver();
    const cases: { answer: Answer; state: string; attempts: number; code: number }[] = [
      { answer: { status: 400 }, state: "failed", attempts: 1, code: 400 },
      { answer: { status: 401 }, state: "failed", attempts: 1, code: 401 },
      { answer: { status: 410 }, state: "failed", attempts: 1, code: 410 },
      {
        answer: { status: 302, headers: { location: elsewhere.url } },
        state: "failed",
        attempts: 1,
        code: 302,
      },
      { answer: { status: 408 }, state: "delivered", attempts: 2, code: 200 },
    ];
    await Promise.all(
      cases.map(async (c) => {
        const rx = await receiver([c.answer]);
        const ep = await endpointAt(rx);
        await credit(ep.walletId);
        const [d] = await settledDeliveries(ep.key, ep.id);
        const label = JSON.stringify(c.answer);
        expect(d, label).toMatchObject({
          state: c.state,
          attempts: c.attempts,
          last_status_code: c.code,
        });
        await new Promise((r) => setTimeout(r, 200));
        expect(rx.received, label).toHaveLength(c.attempts);
        expect(new Set(rx.received.map((r) => r.id)).size, label).toBe(1);
        for (const r of rx.received) verify(ep.secret, r);
      }),
    );
    expect(elsewhere.received).toHaveLength(0);
  });
});

describe("a receiver that never answers", () => {
  it("holds at most its share of attempts, delays no other endpoint, and is disabled after the window", async () => {
    const slow = await receiver();
    slow.respond = () => "hang";
    const fast = await receiver();
    const { key, walletId } = await s.t.newWallet(0);
    const add = async (rx: Receiver) =>
      (
        await s.t.call("POST", "/wallet/webhooks", {
          key,
          body: { url: rx.url, events: ["wallet.credited"] },
        })
      ).body.endpoint.id as string;
    const slowId = await add(slow);
    await add(fast);
    const n = 10;
    const started = Date.now();
    for (let i = 0; i < n; i++) await credit(walletId, 100 + i);
    await fast.waitFor(n, TIMING.timeoutMs);
    // Every event reached the fast endpoint before the slow one's first attempt timed out,
    // and the slow one never had more than its share in flight.
    expect(Date.now() - started).toBeLessThan(TIMING.timeoutMs);
    expect(slow.received.length).toBeLessThanOrEqual(PER_ENDPOINT);
    expect(slow.received.length).toBeGreaterThan(0);
    // Past the window, the endpoint is disabled and the owner reads why.
    let endpoint: Json;
    for (const until = Date.now() + 40_000; Date.now() < until; ) {
      const list = await s.t.call("GET", "/wallet/webhooks", { key });
      endpoint = list.body.endpoints.find((e: { id: string }) => e.id === slowId);
      const waiting = endpoint.deliveries.some((d: { state: string }) => d.state === "pending");
      if (endpoint.status === "disabled" && !waiting) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(endpoint.status).toBe("disabled");
    expect(endpoint.disabled_reason).toMatch(/timed out/);
    // Those in flight when it was disabled ended failed too, as their attempts ended: none is
    // left waiting for a claim that would never come.
    expect(
      endpoint.deliveries.every((d: { state: string }) => d.state === "failed"),
      JSON.stringify(endpoint.deliveries),
    ).toBe(true);
  }, 60_000);
});

describe("an endpoint deleted while an attempt to it is in flight", () => {
  it("leaves nothing waiting: the attempt's retryable failure does not bring the delivery back", async () => {
    const rx = await receiver([{ status: 503, delayMs: 1500 }]);
    const ep = await endpointAt(rx);
    await credit(ep.walletId);
    await rx.waitFor(1);
    const deleted = await s.t.call("POST", `/wallet/webhooks/${ep.id}/delete`, { key: ep.key });
    expect(deleted.status).toBe(200);
    await new Promise((r) => setTimeout(r, 2500)); // the 503 arrives; a retry would be due
    expect(rx.received).toHaveLength(1);
    const rows = await s.t.deps.db
      .selectFrom("webhook_deliveries")
      .select(["state", "last_status_code"])
      .where("endpoint_id", "=", ep.id)
      .execute();
    expect(rows).toEqual([{ state: "cancelled", last_status_code: null }]);
    // The attempt itself is on record, with the answer it got.
    const attempts = await s.t.deps.db
      .selectFrom("webhook_attempts")
      .innerJoin("webhook_deliveries", "webhook_deliveries.id", "webhook_attempts.delivery_id")
      .select(["webhook_attempts.attempt", "webhook_attempts.status_code"])
      .where("webhook_deliveries.endpoint_id", "=", ep.id)
      .execute();
    expect(attempts).toEqual([{ attempt: 1, status_code: 503 }]);
  });
});

describe("/metrics", () => {
  it("counts queued, delivered, retrying, failed and disabled", async () => {
    // Nothing still waits once the tests above settled.
    for (const until = Date.now() + 20_000; Date.now() < until; ) {
      if ((await scrape(s.t)).get("kinora_webhook_deliveries_queued") === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const m = await scrape(s.t);
    expect(m.get("kinora_webhook_deliveries_queued")).toBe(0);
    expect(m.get('kinora_webhook_deliveries_total{outcome="delivered"}')).toBeGreaterThanOrEqual(
      10,
    );
    expect(m.get('kinora_webhook_deliveries_total{outcome="failed"}')).toBeGreaterThanOrEqual(4);
    expect(m.get('kinora_webhook_deliveries_total{outcome="retrying"}')).toBeGreaterThanOrEqual(1);
    expect(m.get("kinora_webhook_endpoints_disabled")).toBe(1);
    expect(m.get("kinora_webhook_endpoints_disabled_total")).toBe(1);
    // A queued delivery is counted while it waits.
    const rx = await receiver();
    rx.respond = () => "hang";
    const ep = await endpointAt(rx);
    await credit(ep.walletId);
    await rx.waitFor(1);
    expect((await scrape(s.t)).get("kinora_webhook_deliveries_queued")).toBe(1);
  });
});
