import { afterAll, describe, expect, it } from "vitest";
import {
  type FakeCogOptions,
  type FakeCogServer,
  startFakeCogServer,
  startWebhookReceiver,
} from "../../../test/fakes/cog-server.js";
import { newWebhookSecret } from "../../standard-webhooks.js";
import { CogError, createCogClient } from "./cog-client.js";
import { newPredictionId, type Prediction } from "./prediction.js";
import { PredictionWaiter, webhookUrlFor } from "./webhook.js";

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

async function fake(opts: FakeCogOptions = {}): Promise<FakeCogServer> {
  const server = await startFakeCogServer(opts);
  closers.push(server.close);
  return server;
}

async function receiver(waiter: PredictionWaiter, secret: string) {
  const r = await startWebhookReceiver(waiter, secret);
  closers.push(r.close);
  return r;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A model that reports progress in its logs and returns a small data URL. */
const quickModel: FakeCogOptions["model"] = async (ctx) => {
  ctx.log("step 1/2 50%");
  await sleep(60);
  ctx.log("step 2/2 100%");
  return `data:text/plain;base64,${Buffer.from(`done:${String(ctx.input.n)}`).toString("base64")}`;
};

/** A model that runs until it is cancelled. */
const stuckModel: FakeCogOptions["model"] = (ctx) =>
  new Promise((_resolve, reject) => {
    ctx.signal.addEventListener("abort", () => reject(new Error("canceled")));
  });

describe("Cog protocol basics", () => {
  it("reads the health check", async () => {
    const server = await fake();
    const client = createCogClient({ baseUrl: server.url });
    await expect(client.health()).resolves.toMatchObject({ status: "READY", ready: true });
  });

  it("sends the bearer token, and surfaces a refusal without it", async () => {
    const server = await fake({ token: "s3cret" });
    await expect(createCogClient({ baseUrl: server.url }).health()).rejects.toMatchObject({
      code: "unauthorized",
    });
    const client = createCogClient({ baseUrl: server.url, token: "s3cret" });
    await expect(client.health()).resolves.toMatchObject({ ready: true });
  });

  it("starts a prediction with an idempotent PUT: a repeat does not start a second run", async () => {
    const server = await fake({ model: quickModel });
    const client = createCogClient({ baseUrl: server.url });
    const id = newPredictionId();
    const first = await client.startPrediction(id, { n: 1 });
    const again = await client.startPrediction(id, { n: 1 });
    expect(first).toMatchObject({ id, status: "starting" });
    expect(again.id).toBe(id);
    expect(server.stats.runsStarted).toBe(1);
    const puts = server.stats.requests.filter((r) => r.method === "PUT");
    expect(puts.map((r) => r.prefer)).toEqual(["respond-async", "respond-async"]);
    await server.settled(id);
    await client.startPrediction(id, { n: 1 }); // even after it finished
    expect(server.stats.runsStarted).toBe(1);
  });

  it("refuses the same id with a different input (409 conflict)", async () => {
    const server = await fake({ model: quickModel });
    const client = createCogClient({ baseUrl: server.url });
    const id = newPredictionId();
    await client.startPrediction(id, { n: 1 });
    await expect(client.startPrediction(id, { n: 2 })).rejects.toMatchObject({ code: "conflict" });
  });

  it("reports a busy server (409) when every slot is taken", async () => {
    const server = await fake({ model: stuckModel });
    const client = createCogClient({ baseUrl: server.url });
    await client.startPrediction(newPredictionId(), {});
    await expect(client.startPrediction(newPredictionId(), {})).rejects.toMatchObject({
      code: "busy",
      status: 409,
    });
    await expect(client.health()).resolves.toMatchObject({ status: "BUSY", ready: false });
  });

  it("returns null from getPrediction on 405 (Cog) and 404, and false from an idle cancel", async () => {
    const cog = await fake({ supportsGet: false });
    const replicateLike = await fake();
    await expect(createCogClient({ baseUrl: cog.url }).getPrediction("abc")).resolves.toBeNull();
    const client = createCogClient({ baseUrl: replicateLike.url });
    await expect(client.getPrediction("unknown")).resolves.toBeNull();
    await expect(client.cancel("unknown")).resolves.toBe(false);
  });

  it("refuses ids that are not path-safe", async () => {
    const client = createCogClient({ baseUrl: "http://127.0.0.1:9" });
    await expect(client.startPrediction("../health-check", {})).rejects.toBeInstanceOf(CogError);
  });
});

describe("CogClient.run", () => {
  it("polls a Replicate-style server to the final prediction", async () => {
    // The model finishes only once the client has seen it processing: a fixed run time lost
    // that race on a loaded machine (the first poll came after the end), and a client that
    // never polls mid-run now fails by timing out.
    let sawProcessing = () => {};
    const seen = new Promise<void>((resolve) => {
      sawProcessing = resolve;
    });
    const server = await fake({
      model: async (ctx) => {
        ctx.log("step 1/2 50%");
        await seen;
        return quickModel(ctx);
      },
    });
    const client = createCogClient({ baseUrl: server.url, pollIntervalMs: 20 });
    const updates: Prediction[] = [];
    const final = await client.run(
      newPredictionId(),
      { n: 7 },
      {
        onUpdate: (p) => {
          updates.push(p);
          if (p.status === "processing") sawProcessing();
        },
      },
    );
    expect(final.status).toBe("succeeded");
    expect(Buffer.from(String(final.output).split(",")[1]!, "base64").toString()).toBe("done:7");
    expect(final.logs).toContain("100%");
    expect(final.metrics.predict_time).toBeGreaterThan(0);
    expect(updates.some((u) => u.status === "processing")).toBe(true);
  });

  it("waits on signed webhooks from a server that cannot be polled", async () => {
    const secret = newWebhookSecret();
    const server = await fake({ model: quickModel, webhookSecret: secret, supportsGet: false });
    const waiter = new PredictionWaiter();
    const hook = await receiver(waiter, secret);
    const client = createCogClient({ baseUrl: server.url, pollIntervalMs: 20 });
    const id = newPredictionId();
    const final = await client.run(id, { n: 1 }, { waiter, webhookUrl: hook.url, timeoutMs: 5000 });
    expect(final).toMatchObject({ id, status: "succeeded" });
    expect(hook.statuses.length).toBeGreaterThan(0);
    expect(hook.statuses.every((s) => s === 200)).toBe(true);
  });

  it("respects webhook_events_filter", async () => {
    const secret = newWebhookSecret();
    const server = await fake({ model: quickModel, webhookSecret: secret, supportsGet: false });
    const waiter = new PredictionWaiter();
    const hook = await receiver(waiter, secret);
    const client = createCogClient({ baseUrl: server.url });
    const id = newPredictionId();
    await client.run(id, {}, { waiter, webhookUrl: hook.url, webhookEventsFilter: ["completed"] });
    await server.settled(id);
    expect(hook.statuses).toEqual([200]);
  });

  it("authenticates an unsigned (plain Cog) webhook by its URL token", async () => {
    const secret = newWebhookSecret();
    const server = await fake({ model: quickModel, supportsGet: false });
    const waiter = new PredictionWaiter();
    const hook = await receiver(waiter, secret);
    const client = createCogClient({ baseUrl: server.url });
    const id = newPredictionId();
    const webhookUrl = webhookUrlFor(hook.url, id, hook.tokens, Date.now() + 60_000);
    await expect(client.run(id, {}, { waiter, webhookUrl })).resolves.toMatchObject({
      status: "succeeded",
    });
  });

  it("ignores forged webhooks: the run times out and the prediction is cancelled", async () => {
    const server = await fake({
      model: stuckModel,
      webhookSecret: newWebhookSecret(), // not the receiver's secret
      supportsGet: false,
      webhookRetries: 0,
    });
    const waiter = new PredictionWaiter();
    const hook = await receiver(waiter, newWebhookSecret());
    const client = createCogClient({ baseUrl: server.url });
    const id = newPredictionId();
    const run = client.run(id, {}, { waiter, webhookUrl: hook.url, timeoutMs: 400 });
    await expect(run).rejects.toMatchObject({ code: "timeout" });
    expect(hook.statuses.length).toBeGreaterThan(0);
    expect(hook.statuses.every((s) => s === 401)).toBe(true);
    expect(waiter.latest(id)).toBeUndefined();
    expect(server.stats.cancelRequests).toEqual([id]);
  });

  it("handles duplicated, out-of-order webhooks: the terminal state wins", async () => {
    const secret = newWebhookSecret();
    const server = await fake({
      model: quickModel,
      webhookSecret: secret,
      supportsGet: false,
      webhookDuplicates: true,
      webhookOutOfOrder: true,
    });
    const waiter = new PredictionWaiter();
    const hook = await receiver(waiter, secret);
    const client = createCogClient({ baseUrl: server.url });
    const id = newPredictionId();
    const final = await client.run(id, {}, { waiter, webhookUrl: hook.url });
    await server.settled(id); // every stale delivery has now arrived
    expect(final.status).toBe("succeeded");
    expect(waiter.latest(id)?.status).toBe("succeeded");
    expect(hook.statuses.length).toBeGreaterThanOrEqual(8); // start, 2 logs, output, completed ×2
    expect(hook.statuses.every((s) => s === 200)).toBe(true);
  });

  it("cancels the prediction on time-out and the server sees the cancel", async () => {
    const server = await fake({ model: stuckModel });
    const client = createCogClient({ baseUrl: server.url, pollIntervalMs: 20 });
    const id = newPredictionId();
    const started = Date.now();
    await expect(client.run(id, {}, { timeoutMs: 300 })).rejects.toMatchObject({ code: "timeout" });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(server.stats.cancelRequests).toEqual([id]);
    await server.settled(id);
    expect(server.prediction(id)?.status).toBe("canceled");
  });

  it("cancels on the caller's abort and rethrows its reason", async () => {
    const server = await fake({ model: stuckModel });
    const client = createCogClient({ baseUrl: server.url, pollIntervalMs: 20 });
    const controller = new AbortController();
    const id = newPredictionId();
    setTimeout(() => controller.abort(new Error("job cancelled")), 100);
    await expect(client.run(id, {}, { signal: controller.signal })).rejects.toThrow(
      "job cancelled",
    );
    expect(server.stats.cancelRequests).toEqual([id]);
  });

  it("surfaces a model failure as a failed prediction with its error", async () => {
    const server = await fake({ model: quickModel, failWith: "CUDA out of memory" });
    const client = createCogClient({ baseUrl: server.url, pollIntervalMs: 20 });
    const final = await client.run(newPredictionId(), {});
    expect(final).toMatchObject({ status: "failed", error: "CUDA out of memory" });
  });

  it("says to configure a webhook when the server cannot be polled, and cancels", async () => {
    const server = await fake({ model: stuckModel, supportsGet: false });
    const client = createCogClient({ baseUrl: server.url, pollIntervalMs: 20 });
    const id = newPredictionId();
    await expect(client.run(id, {})).rejects.toMatchObject({ code: "unsupported" });
    expect(server.stats.cancelRequests).toEqual([id]);
  });
});
