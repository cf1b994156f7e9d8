/**
 * A fresh app on a fresh database for one test file, called in-process (app.request), plus
 * helpers that create wallets and keys the way a caller would: through the API.
 */
import { type AppDeps, buildApp } from "../src/app.js";
import type { Router } from "../src/http/router.js";
import { credit } from "../src/services/ledger.js";
import { openTestDatabase, type TestDatabase } from "./db.js";
import { coreDeps, type TestClock, testClock } from "./deps.js";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

export interface TestApp {
  app: Router;
  deps: AppDeps;
  database: TestDatabase;
  clock: TestClock;
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  newWallet(balanceCents?: number): Promise<{ key: string; walletId: string }>;
  newAgentKey(walletKey: string, limitCents: number): Promise<{ key: string; id: string }>;
  close(): Promise<void>;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
  body: any;
  headers: Headers;
}

export async function createTestApp(): Promise<TestApp> {
  const database = await openTestDatabase();
  const clock = testClock();
  const deps: AppDeps = { ...coreDeps(database, clock), adminToken: ADMIN_TOKEN };
  const app = buildApp(deps);

  const call = async (
    method: string,
    path: string,
    opts: CallOptions = {},
  ): Promise<CallResult> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await app.request(path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Non-JSON bodies stay text.
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };

  return {
    app,
    deps,
    database,
    clock,
    call,
    async newWallet(balanceCents = 0) {
      const res = await call("POST", "/wallet", { body: {} });
      if (res.status !== 200) throw new Error(`POST /wallet: ${res.status}`);
      const walletId = res.body.wallet.wallet_id as string;
      if (balanceCents > 0) {
        await credit(deps.db, {
          walletId,
          amountCents: balanceCents,
          kind: "topup",
          reference: `test-${walletId}`,
          reason: "test funds",
        });
      }
      return { key: res.body.key as string, walletId };
    },
    async newAgentKey(walletKey, limitCents) {
      const res = await call("POST", "/wallet/keys", {
        key: walletKey,
        body: { limit_cents: limitCents },
      });
      if (res.status !== 200)
        throw new Error(`POST /wallet/keys: ${res.status} ${JSON.stringify(res.body)}`);
      return { key: res.body.key as string, id: res.body.agent_key.id as string };
    },
    close: () => database.cleanup(),
  };
}
