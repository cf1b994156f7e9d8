/**
 * Webhooks across real `kinora serve` processes: a node SIGKILLed in the middle of an attempt
 * (the event is delivered later by the restarted node, once per attempt number; neither node's
 * debug log holds a secret or key), and — on
 * PostgreSQL — two API nodes sharing one outbox (every event delivered exactly once between
 * them, both nodes delivering).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { killAll, startServe } from "../cluster/nodes.js";
import { serverDatabase } from "../server-db.js";
import { type Receiver, startReceiver } from "./receiver.js";

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN_TOKEN = "webhook-admin-token-0123456789";
const dir = mkdtempSync(path.join(tmpdir(), "kinora-webhook-nodes-"));
const receivers: Receiver[] = [];

afterAll(async () => {
  await killAll();
  for (const r of receivers) await r.close();
  rmSync(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string>) {
  return {
    LOG_LEVEL: "info",
    ADMIN_TOKEN,
    SIGNING_SECRET: "webhook-nodes-signing-secret-0123456789ab",
    WORKERS: "0",
    RATE_LIMITS: "off",
    WEBHOOK_ALLOW_HTTP_LOOPBACK: "true",
    WEBHOOK_TIMEOUT_MS: "2000",
    ...extra,
  };
}

async function post(base: string, route: string, body: unknown, key?: string) {
  const res = await fetch(`${base}${route}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: a webhook payload or JSON answer read field by field in assertions
  return { status: res.status, body: (await res.json()) as any };
}

async function walletWithEndpoint(base: string, receiver: Receiver) {
  const wallet = await post(base, "/wallet", {});
  const key = wallet.body.key as string;
  const walletId = wallet.body.wallet.wallet_id as string;
  const ep = await post(
    base,
    "/wallet/webhooks",
    { url: receiver.url, events: ["wallet.credited"] },
    key,
  );
  expect(ep.status).toBe(200);
  return { key, walletId, secret: ep.body.secret as string };
}

const credit = (base: string, walletId: string, cents: number) =>
  post(
    base,
    `/admin/wallets/${walletId}/credit`,
    { amount_cents: cents, reason: "webhook test" },
    ADMIN_TOKEN,
  );

describe("a node killed mid-attempt", () => {
  it("leaves the event to be delivered later, once per attempt number", async () => {
    const database = await serverDatabase();
    const receiver = await startReceiver();
    receivers.push(receiver);
    receiver.respond = (r) => (r.attempt === 1 ? "hang" : { status: 204 });
    const nodeEnv = env({
      ...database.env,
      DATA_DIR: path.join(dir, "killed"),
      LOG_LEVEL: "debug",
    });
    try {
      const first = await startServe(nodeEnv);
      const { walletId, secret, key } = await walletWithEndpoint(first.url, receiver);
      expect((await credit(first.url, walletId, 700)).status).toBe(200);
      await receiver.waitFor(1, 60_000);
      await first.kill(); // SIGKILL while the receiver holds attempt 1 open
      const second = await startServe(nodeEnv);
      const got = await receiver.waitFor(2, 90_000);
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.received.map((r) => [r.id, r.attempt])).toEqual([
        [got[0]?.id, 1],
        [got[0]?.id, 2],
      ]);
      for (const r of got) new Webhook(secret).verify(r.body, r.headers);
      const list = await fetch(`${second.url}/wallet/webhooks`, {
        headers: { authorization: `Bearer ${key}` },
      });
      // biome-ignore lint/suspicious/noExplicitAny: a webhook payload or JSON answer read field by field in assertions
      const [endpoint] = ((await list.json()) as any).endpoints;
      expect(endpoint.deliveries[0]).toMatchObject({
        state: "delivered",
        attempts: 2,
        last_status_code: 204,
      });
      // Secrets never reach the log, at debug level, through registration, reads and delivery.
      const read = await fetch(`${second.url}/wallet/webhook-secret`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const walletSecret = ((await read.json()) as { secret: string }).secret;
      await second.stop();
      const logs = first.output() + second.output();
      expect(logs).toMatch(/"msg":"request"/);
      for (const s of [secret, walletSecret]) {
        expect(logs).not.toContain(s.slice("whsec_".length));
      }
      expect(logs).not.toContain(key);
    } finally {
      await killAll();
      await database.drop();
    }
  }, 240_000);
});

describe.skipIf(!onPostgres)("two API nodes on PostgreSQL", () => {
  it("share the outbox: each event delivered exactly once, by both nodes", async () => {
    const database = await serverDatabase();
    const receiver = await startReceiver();
    receivers.push(receiver);
    // A slow receiver keeps deliveries in flight, so both nodes claim.
    receiver.respond = () => ({ status: 200 });
    try {
      const a = await startServe(env({ ...database.env, DATA_DIR: path.join(dir, "a") }));
      const b = await startServe(env({ ...database.env, DATA_DIR: path.join(dir, "b") }));
      const { walletId, secret } = await walletWithEndpoint(a.url, receiver);
      const n = 40;
      await Promise.all(
        Array.from({ length: n }, (_, i) => credit(i % 2 ? b.url : a.url, walletId, 100 + i)),
      );
      const got = await receiver.waitFor(n, 120_000);
      await new Promise((r) => setTimeout(r, 2000));
      expect(receiver.received).toHaveLength(n);
      expect(new Set(got.map((r) => r.id)).size).toBe(n);
      expect(got.every((r) => r.attempt === 1)).toBe(true);
      const amounts = got.map(
        // biome-ignore lint/suspicious/noExplicitAny: a webhook payload or JSON answer read field by field in assertions
        (r) => (new Webhook(secret).verify(r.body, r.headers) as any).data.amount_cents,
      );
      expect(amounts.sort((x, y) => x - y)).toEqual(Array.from({ length: n }, (_, i) => 100 + i));
      const nodes = new Set(got.map((r) => r.headers["user-agent"]));
      expect(nodes.size).toBe(1); // same software; which node sent it is in the attempts table
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await client.connect();
      const { rows } = await client.query("SELECT DISTINCT node FROM webhook_attempts");
      await client.end();
      expect(rows.length).toBe(2);
    } finally {
      await killAll();
      await database.drop();
    }
  }, 240_000);
});
