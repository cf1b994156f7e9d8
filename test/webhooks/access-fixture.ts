/**
 * The app the webhook access tests share (access.test.ts, secrets-at-rest.test.ts): two loopback
 * receivers, the restore kind without an executor, webhook delivery running fast, and every log
 * line at debug level kept in `logLines` for the "never logged" checks. `setUpAccessApp()`
 * registers its start and stop with the calling file's beforeAll / afterAll; the bindings below
 * are live, set once it has started.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { webhooksFeature } from "../../src/features/webhooks.js";
import { restoreFeature, restoreKind } from "../../src/kinds/restore/kind.js";
import { createLogger } from "../../src/logger.js";
import { createTestApp, type TestApp } from "../app.js";
import { type Receiver, startReceiver } from "./receiver.js";

const TIMING = { timeoutMs: 2500, baseMs: 50, capMs: 1000, windowMs: 60_000 };

export let t: TestApp;
export let mine: Receiver;
export let theirs: Receiver;
let stop: () => Promise<void>;
export const logLines: string[] = [];

/** Starts the shared app before the calling file's tests and stops it after them. */
export function setUpAccessApp(): void {
  beforeAll(async () => {
    mine = await startReceiver();
    theirs = await startReceiver();
    t = await createTestApp({
      env: { WEBHOOK_ALLOW_HTTP_LOOPBACK: "true" },
      platform: (p) => ({
        ...p,
        clock: () => new Date(),
        // Everything at debug level, kept for the "never logged" check.
        log: createLogger("debug", {}, (line) => logLines.push(line)),
      }),
      features: [
        restoreFeature({ noExecutor: true }),
        webhooksFeature({ kinds: [restoreKind], timing: TIMING, leaseMs: 20_000, pollMs: 50 }),
      ],
    });
    const task = await t.features.find((f) => f.name === "webhooks")?.start?.();
    stop = async () => task?.stop();
  });
  afterAll(async () => {
    await stop();
    await mine.close();
    await theirs.close();
    await t.close();
  });
}

export const video = { sizeBytes: 1000 };

/** A wallet with an endpoint at `receiver`, an agent key, and the wallet's default secret. */
export async function owner(receiver: Receiver) {
  const { key, walletId } = await t.newWallet(5000);
  const ep = await t.call("POST", "/wallet/webhooks", {
    key,
    body: { url: receiver.url, description: "owner's endpoint" },
  });
  expect(ep.status).toBe(200);
  const agent = await t.newAgentKey(key, 2000, { askBeforeSpending: false });
  const secret = (await t.call("GET", "/wallet/webhook-secret", { key })).body.secret as string;
  return {
    key,
    walletId,
    agent,
    endpointId: ep.body.endpoint.id as string,
    endpointSecret: ep.body.secret as string,
    secret,
  };
}

/** Waits until every delivery of the job is delivered; returns the job's read by `key`. */
export async function settled(jobId: string) {
  for (let i = 0; i < 400; i++) {
    const pending = await t.deps.db
      .selectFrom("webhook_deliveries")
      .innerJoin("webhook_events", "webhook_events.id", "webhook_deliveries.event_id")
      .select("webhook_deliveries.state")
      .where("webhook_events.job_id", "=", jobId)
      .where("webhook_deliveries.state", "=", "pending")
      .execute();
    const any = await t.deps.db
      .selectFrom("webhook_events")
      .select("id")
      .where("job_id", "=", jobId)
      .execute();
    if (any.length > 0 && pending.length === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`deliveries of ${jobId} never settled`);
}
