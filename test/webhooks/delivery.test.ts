/**
 * Webhook delivery end to end, in process, with a real receiver on 127.0.0.1: a restore job's
 * own webhook_url gets started, progress and completed; an endpoint gets the wallet's events;
 * the receiver fails, times out, answers 429 with Retry-After, then succeeds — one event id,
 * one attempt number per request, every signature checked with the standardwebhooks verifier.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobEngineDeps } from "../../src/feature.js";
import { webhooksFeature } from "../../src/features/webhooks.js";
import { inTx, moveJob } from "../../src/jobs/move.js";
import { createJobQueue } from "../../src/jobs/queue.js";
import { restoreFeature, restoreKind } from "../../src/kinds/restore/kind.js";
import { restoreJobs } from "../../src/kinds/restore/services/definition.js";
import { createTestApp, type TestApp } from "../app.js";
import { jobBody } from "../restore/helpers.js";
import { type Answer, type Receiver, startReceiver } from "./receiver.js";

// Short, but not so short that a loaded machine times out an answered request.
const TIMING = { timeoutMs: 2500, baseMs: 50, capMs: 3000, windowMs: 60_000 };

let t: TestApp;
let receiver: Receiver;
let stopDelivery: () => Promise<void>;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestApp({
    env: { WEBHOOK_ALLOW_HTTP_LOOPBACK: "true" },
    // Retries come due by the wall clock.
    platform: (p) => ({ ...p, clock: () => new Date() }),
    features: [
      restoreFeature({ noExecutor: true }),
      webhooksFeature({ kinds: [restoreKind], timing: TIMING, leaseMs: 20_000, pollMs: 50 }),
    ],
  });
  const webhooks = t.features.find((f) => f.name === "webhooks");
  const task = await webhooks?.start?.();
  stopDelivery = async () => task?.stop();
});
afterAll(async () => {
  await stopDelivery();
  await receiver.close();
  await t.close();
});

const video = { sizeBytes: 1000 };

function verify(secret: string, r: { headers: Record<string, string>; body: string }) {
  // Throws unless the signature, id and timestamp are right (and the timestamp recent).
  // biome-ignore lint/suspicious/noExplicitAny: a webhook payload or JSON answer read field by field in assertions
  return new Webhook(secret).verify(r.body, r.headers) as { type: string; data: any };
}

async function deliveredJob(key: string, events: string[]) {
  const created = await t.call("POST", "/cloud/jobs", {
    key,
    body: jobBody(video, { webhook_url: receiver.url, webhook_events: events }),
  });
  expect(created.status).toBe(200);
  const id = created.body.job.id as string;
  const now = new Date();
  await moveJob(t.deps.db, restoreJobs, id, "start", now, { queued_at: now });
  const queue = createJobQueue(restoreJobs, jobEngineDeps(t.platform));
  const item = await queue.claim("w1", 60_000);
  expect(item?.jobId).toBe(id);
  await queue.heartbeat(id, "w1", 60_000, 0.5);
  await queue.heartbeat(id, "w1", 60_000, 0.51); // same 5 % step: no second progress event
  await queue.fail(id, "w1", { kind: "final", message: "the video could not be decoded" });
  return id;
}

describe("a job's own webhook_url", () => {
  it("gets started, progress and completed through failures, a time-out and a 429", async () => {
    const { key } = await t.newWallet(5000);
    const secret = (await t.call("GET", "/wallet/webhook-secret", { key })).body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const trouble: Answer[] = [
      { status: 500 },
      "hang",
      { status: 429, headers: { "retry-after": "1" } },
    ];
    receiver.respond = (r) =>
      (JSON.parse(r.body).type === "job.started" ? trouble[r.attempt - 1] : undefined) ?? {
        status: 200,
      };
    const id = await deliveredJob(key, ["started", "progress", "completed"]);
    // started: 500, time-out, 429, 200; then progress and completed (200 each).
    const got = await receiver.waitFor(6, 60_000);
    const byId = new Map<string, typeof got>();
    for (const r of got) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
    expect(byId.size).toBe(3);
    const types = [...byId.values()].map((rs) => verify(secret, rs[0] as never).type);
    expect(types.sort()).toEqual(["job.completed", "job.progress", "job.started"]);
    const started = [...byId.values()].find((rs) => rs.length === 4) ?? [];
    expect(started.map((r) => r.attempt)).toEqual([1, 2, 3, 4]);
    for (const r of started) verify(secret, r);
    // Retry-After: 1 was honoured (the backoff alone would be ~200 ms).
    expect((started[3]?.at ?? 0) - (started[2]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    const completed = got.find((r) => verify(secret, r).type === "job.completed") as never;
    const payload = verify(secret, completed);
    expect(payload.data).toMatchObject({ id, status: "failed" });
    // The job's read shows its deliveries.
    await expectDeliveredOnRead(id, key);
    receiver.respond = undefined;
  });

  it("by default sends completed only, exactly once per job", async () => {
    const { key } = await t.newWallet(5000);
    const before = receiver.received.length;
    const id = await deliveredJob(key, ["completed"]);
    await receiver.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 300));
    const mine = receiver.received.slice(before);
    expect(mine).toHaveLength(1);
    expect(JSON.parse(mine[0]?.body ?? "{}")).toMatchObject({
      type: "job.completed",
      data: { id },
    });
  });
});

describe("the outbox", () => {
  it("is written in the transaction of the move: rolled back with it, committed with it", async () => {
    const { key } = await t.newWallet(5000);
    const before = receiver.received.length;
    const created = await t.call("POST", "/cloud/jobs", {
      key,
      body: jobBody(video, { webhook_url: receiver.url }),
    });
    const id = created.body.job.id as string;
    const events = () =>
      t.deps.db.selectFrom("webhook_events").select("id").where("job_id", "=", id).execute();
    // The move and its event in one transaction that fails after both were written.
    await expect(
      inTx(t.deps.db, async (tx) => {
        const moved = await moveJob(tx, restoreJobs, id, "cancel", new Date());
        expect(moved?.status).toBe("cancelled");
        expect(
          await tx.selectFrom("webhook_events").select("id").where("job_id", "=", id).execute(),
        ).toHaveLength(1);
        throw new Error("the process died before the commit");
      }),
    ).rejects.toThrow(/before the commit/);
    expect(await events()).toHaveLength(0);
    expect((await t.call("GET", `/cloud/jobs/${id}`)).body.job.status).toBe("awaiting_upload");
    // Committed: the event is there with its delivery, and goes out once.
    await moveJob(t.deps.db, restoreJobs, id, "cancel", new Date());
    const [event] = await events();
    await receiver.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 300));
    const mine = receiver.received.slice(before);
    expect(mine.map((r) => r.id)).toEqual([event?.id]);
  });
});

async function expectDeliveredOnRead(id: string, key: string) {
  for (let i = 0; i < 100; i++) {
    const read = await t.call("GET", `/cloud/jobs/${id}`, { key });
    const hook = read.body.job.webhook;
    if (hook?.deliveries.every((d: { state: string }) => d.state === "delivered")) {
      expect(hook.url).toBe(receiver.url);
      const started = hook.deliveries.find((d: { type: string }) => d.type === "job.started");
      expect(started).toMatchObject({ attempts: 4, last_status_code: 200, next_attempt_at: null });
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("deliveries never all delivered");
}
