/**
 * GET /metrics end to end: who may scrape, and that requests, charges, refunds, 429s and the
 * job engine move the right series — with route patterns, never ids, in the labels.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricsFeature } from "../../src/features/metrics.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { restoreFeature } from "../../src/kinds/restore/kind.js";
import { ADMIN_TOKEN, createTestApp, type TestApp } from "../app.js";
import { makeImage, stubClassifier } from "../clips/helpers.js";
import { METRICS_TOKEN, scrape } from "./scrape.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    features: [
      restoreFeature({ noExecutor: true }),
      clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
      metricsFeature(),
    ],
    env: { METRICS_TOKEN },
  });
});
afterAll(async () => {
  await t.close();
});

const restoreBody = {
  duration_sec: 60,
  quality: "faithful",
  filename: "home-movie.mp4",
  content_type: "video/mp4",
  size: 1000,
};

describe("GET /metrics access", () => {
  it("answers 401 without a token or with a wrong one, 200 with METRICS_TOKEN or ADMIN_TOKEN", async () => {
    const none = await t.call("GET", "/metrics");
    expect(none.status).toBe(401);
    expect(none.body.detail).toMatch(/METRICS_TOKEN/);
    expect((await t.call("GET", "/metrics", { key: "not-the-token-000000" })).status).toBe(401);
    const ok = await t.app.request("/metrics", {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await ok.text()).toMatch(/# TYPE kinora_http_requests_total counter/);
    expect((await t.call("GET", "/metrics", { key: ADMIN_TOKEN })).status).toBe(200);
  });

  it("answers 403 saying how to enable it when no token is configured, 404 when switched off", async () => {
    const bare = await createTestApp({
      features: [metricsFeature()],
      platform: (p) => ({ ...p, adminToken: "" }),
    });
    const off = await createTestApp({ features: [metricsFeature()], env: { METRICS: "off" } });
    try {
      const res = await bare.call("GET", "/metrics", { key: "anything-at-all-0000" });
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/set METRICS_TOKEN/);
      const gone = await off.call("GET", "/metrics", { key: ADMIN_TOKEN });
      expect(gone.status).toBe(404);
      expect(gone.body.detail).toMatch(/METRICS=on/);
    } finally {
      await bare.close();
      await off.close();
    }
  });
});

describe("money metrics", () => {
  it("counts a charged restore and its refund, in entries and cents", async () => {
    const before = await scrape(t);
    const { key } = await t.newWallet(5000);
    const created = await t.call("POST", "/cloud/jobs", { key, body: restoreBody });
    expect(created.status).toBe(200);
    const id = created.body.job.id;
    expect((await t.call("POST", `/cloud/jobs/${id}/cancel`, { key })).status).toBe(200);
    const after = await scrape(t);
    const delta = (s: string) => after.get(s) - before.get(s);
    expect(delta('kinora_ledger_entries_total{kind="charge"}')).toBe(1);
    expect(delta('kinora_ledger_cents_total{kind="charge",direction="out"}')).toBe(299);
    expect(delta('kinora_ledger_entries_total{kind="refund"}')).toBe(1);
    expect(delta('kinora_ledger_cents_total{kind="refund",direction="in"}')).toBe(299);
    expect(after.text).not.toContain(id);
  });

  it("counts a charged clip and its refund", async () => {
    const before = await scrape(t);
    const { key } = await t.newWallet(5000);
    const created = await t.call("POST", "/motion/jobs", {
      key,
      body: { prompt: "slow push in", content_type: "image/jpeg", size: "720p" },
    });
    expect(created.status).toBe(200);
    const id = created.body.job.id;
    expect((await t.call("POST", `/motion/jobs/${id}/cancel`, { key })).status).toBe(200);
    const after = await scrape(t);
    const delta = (s: string) => after.get(s) - before.get(s);
    expect(delta('kinora_ledger_cents_total{kind="charge",direction="out"}')).toBe(99);
    expect(delta('kinora_ledger_cents_total{kind="refund",direction="in"}')).toBe(99);
  });

  it("counts an operator credit as an adjustment", async () => {
    const before = await scrape(t);
    const { walletId } = await t.newWallet(0);
    const res = await t.call("POST", `/admin/wallets/${walletId}/credit`, {
      key: ADMIN_TOKEN,
      body: { amount_cents: 250, reason: "goodwill" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = await scrape(t);
    const kind = 'kind="adjustment",direction="in"';
    expect(
      after.get(`kinora_ledger_cents_total{${kind}}`) -
        before.get(`kinora_ledger_cents_total{${kind}}`),
    ).toBe(250);
  });
});

describe("request metrics", () => {
  it("labels requests by route pattern, method and status, never by id", async () => {
    const { key } = await t.newWallet(0);
    const missing = "rj_0123456789abcdefghijkl";
    expect((await t.call("GET", `/cloud/jobs/${missing}`, { key })).status).toBe(404);
    expect((await t.call("GET", "/no/such/path/xyz123")).status).toBe(404);
    const m = await scrape(t);
    expect(
      m.get('kinora_http_requests_total{route="/cloud/jobs/:id",method="GET",status="404"}'),
    ).toBe(1);
    expect(m.get('kinora_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(
      1,
    );
    expect(
      m.get(
        'kinora_http_request_duration_seconds_count{route="/cloud/jobs/:id",method="GET",status="404"}',
      ),
    ).toBe(1);
    expect(m.text).not.toContain(missing);
    expect(m.text).not.toContain("xyz123");
    const routes = [...m.text.matchAll(/route="([^"]*)"/g)].map((x) => x[1] ?? "");
    for (const route of routes) expect(route).not.toMatch(/(rj|clip|wal|key)_[A-Za-z0-9]/);
  });
});

describe("rate-limit metrics", () => {
  it("counts 429s by rule and labels them with the route they were aimed at", async () => {
    const limited = await createTestApp({
      features: [restoreFeature({ noExecutor: true }), metricsFeature()],
      env: { METRICS_TOKEN, RATE_LIMITS: "on", RATE_LIMIT_QUOTE_PER_MIN: "1" },
    });
    try {
      const body = { duration_sec: 60, quality: "faithful" };
      expect((await limited.call("POST", "/cloud/quote", { body })).status).toBe(200);
      expect((await limited.call("POST", "/cloud/quote", { body })).status).toBe(429);
      const m = await scrape(limited);
      expect(m.get('kinora_rate_limited_total{rule="quote"}')).toBe(1);
      expect(
        m.get('kinora_http_requests_total{route="/cloud/quote",method="POST",status="429"}'),
      ).toBe(1);
    } finally {
      await limited.close();
    }
  });
});

describe("job metrics", () => {
  it("reports queue depth from the database, queue wait at claim, retries, lapses and run time", async () => {
    const { key } = await t.newWallet(5000);
    const image = await makeImage(320, 240);
    const queued: string[] = [];
    for (let i = 0; i < 2; i++) {
      const created = await t.call("POST", "/motion/jobs", {
        key,
        body: {
          prompt: "slow push in",
          content_type: "image/jpeg",
          image_bytes: image.length,
          size: "480p",
        },
      });
      const put = await t.fetchUrl(created.body.upload_url, {
        method: "PUT",
        headers: created.body.upload_headers,
        body: new Uint8Array(image),
      });
      expect(put.ok).toBe(true);
      const id = created.body.job.id;
      expect((await t.call("POST", `/motion/jobs/${id}/start`, { key })).status).toBe(200);
      queued.push(id);
    }
    const waiting = await scrape(t);
    expect(waiting.get('kinora_job_queue_depth{kind="clip"}')).toBe(2);
    expect(waiting.get('kinora_jobs{kind="clip",status="queued"}')).toBe(2);
    expect(waiting.get("kinora_metrics_db_up")).toBe(1);

    const queue = t.features.flatMap((f) => f.queues ?? []).find((q) => q.kind === "clip");
    if (!queue) throw new Error("no clip queue");
    t.clock.advance(30_000);
    const first = await queue.claim("worker-a", 60_000);
    expect(first).not.toBeNull();
    // Its lease lapses with attempts left: requeued, then claimed again and failed for good.
    t.clock.advance(61_000);
    expect(await queue.recoverLapsedLeases()).toBe(1);
    const again = await queue.claim("worker-b", 60_000);
    expect(again?.jobId).toBe(first?.jobId);
    t.clock.advance(5_000);
    await queue.fail(again?.jobId ?? "", "worker-b", {
      kind: "final",
      message: "The image is unusable.",
    });

    const m = await scrape(t);
    expect(m.get('kinora_job_queue_wait_seconds_count{kind="clip"}')).toBe(1);
    expect(m.get('kinora_job_queue_wait_seconds_sum{kind="clip"}')).toBe(30);
    expect(m.get('kinora_job_leases_lapsed_total{kind="clip",outcome="requeued"}')).toBe(1);
    expect(m.get('kinora_job_retries_total{kind="clip",reason="lapsed"}')).toBe(1);
    const run = 'kind="clip",variant="480p",status="failed"';
    expect(m.get(`kinora_job_run_seconds_count{${run}}`)).toBe(1);
    expect(m.get(`kinora_job_run_seconds_sum{${run}}`)).toBe(66);
    expect(m.get('kinora_job_queue_depth{kind="clip"}')).toBe(1);
    expect(m.get('kinora_ledger_entries_total{kind="refund"}')).toBeGreaterThanOrEqual(1);
  });
});
