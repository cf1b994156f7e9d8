/**
 * A fresh app on a fresh database for one test file, called in-process (app.request), plus
 * helpers that create wallets and keys the way a caller would: through the API.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { createEventHub } from "../src/domain/events.js";
import type { Feature, FeatureFactory, Platform } from "../src/feature.js";
import type { Router } from "../src/http/router.js";
import { createJobKindRegistry } from "../src/jobs/queue-estimate/kinds.js";
import { createJobWatch } from "../src/jobs/watch.js";
import { JOBS_CHANNEL } from "../src/jobs/work.js";
import { keyCacheFor } from "../src/services/key-cache-for.js";
import { credit } from "../src/services/ledger.js";
import { rateLimiterFor } from "../src/services/rate-limiter-for.js";
import { createSigner } from "../src/signing.js";
import { createLocalBlobStore } from "../src/storage/local-store.js";
import { openTestDatabase, type TestDatabase } from "./db.js";
import { coreDeps, type TestClock, testClock } from "./deps.js";

export const ADMIN_TOKEN = "test-admin-token-0123456789";
/** Local-store URLs point here; tests route them back into the in-process app. */
export const TEST_PUBLIC_URL = "http://kinora.test";

export interface TestApp {
  app: Router;
  platform: Platform;
  /** Alias of platform, for tests written against the services. */
  deps: Platform;
  features: Feature[];
  database: TestDatabase;
  clock: TestClock;
  dataDir: string;
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  /** Fetches a URL kinora handed out (upload/download), in-process when it is ours. */
  fetchUrl(url: string, init?: RequestInit): Promise<Response>;
  newWallet(balanceCents?: number): Promise<{ key: string; walletId: string }>;
  /** An agent key that may spend without asking (`askBeforeSpending` false) unless told to ask. */
  newAgentKey(
    walletKey: string,
    limitCents: number,
    opts?: { askBeforeSpending?: boolean },
  ): Promise<{ key: string; id: string }>;
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

export interface TestAppOptions {
  features?: FeatureFactory[];
  env?: Record<string, string>;
  /** Customise the platform before features are built (e.g. swap storage). */
  platform?: (p: Platform) => Platform;
  /** A database of the test's own (e.g. PGlite on disk) instead of a fresh one per file. */
  database?: () => Promise<TestDatabase>;
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  // Composed as `kinora serve` composes it: a key cache on PGlite, watched for writes.
  const { database, keyCache } = keyCacheFor(await (opts.database ?? openTestDatabase)());
  const clock = testClock();
  const dataDir = mkdtempSync(path.join(tmpdir(), "kinora-test-"));
  // Rate limits are off in tests unless a test turns them on (RATE_LIMITS: "on"): the injected
  // clock stands still, so every request of a file would share one window.
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    RATE_LIMITS: "off",
    ...opts.env,
  });
  const signingSecret = "test-signing-secret-0123456789abcdef";
  const signer = createSigner(signingSecret);
  let platform: Platform = {
    ...coreDeps(database, clock),
    keyCache,
    config,
    database,
    storage: createLocalBlobStore({
      rootDir: path.join(dataDir, "files"),
      publicBaseUrl: TEST_PUBLIC_URL,
      signer,
      now: () => clock.now().getTime(),
    }),
    adminToken: ADMIN_TOKEN,
    signer,
    publicUrl: TEST_PUBLIC_URL,
    rateLimiter: rateLimiterFor(database, clock.now),
    events: createEventHub(),
    jobKinds: createJobKindRegistry(),
    async notifyJobs() {
      await sql`SELECT pg_notify(${JOBS_CHANNEL}, '')`.execute(database.db);
    },
  };
  platform.jobWatch = await createJobWatch(database);
  if (opts.platform) platform = opts.platform(platform);
  const features = await Promise.all((opts.features ?? []).map((make) => make(platform)));
  const app = buildApp(platform, features);

  const call = async (method: string, path: string, o: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
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

  const fetchUrl = (url: string, init?: RequestInit) =>
    url.startsWith(TEST_PUBLIC_URL)
      ? Promise.resolve(app.request(url.slice(TEST_PUBLIC_URL.length), init))
      : fetch(url, init);

  return {
    app,
    platform,
    deps: platform,
    features,
    database,
    clock,
    dataDir,
    call,
    fetchUrl,
    async newWallet(balanceCents = 0) {
      const res = await call("POST", "/wallet", { body: {} });
      if (res.status !== 200) throw new Error(`POST /wallet: ${res.status}`);
      const walletId = res.body.wallet.wallet_id as string;
      if (balanceCents > 0) {
        await credit(platform.db, {
          walletId,
          amountCents: balanceCents,
          kind: "topup",
          reference: `test-${walletId}`,
          reason: "test funds",
        });
      }
      return { key: res.body.key as string, walletId };
    },
    async newAgentKey(walletKey, limitCents, opts = {}) {
      // A key that may spend within its limit unless the test is about the owner's yes (the
      // server's default, ask_before_spending true, makes every purchase wait for an approval).
      const ask = opts.askBeforeSpending ?? false;
      const res = await call("POST", "/wallet/keys", {
        key: walletKey,
        body: {
          limit_cents: limitCents,
          ask_before_spending: ask,
        },
      });
      if (res.status !== 200)
        throw new Error(`POST /wallet/keys: ${res.status} ${JSON.stringify(res.body)}`);
      return { key: res.body.key as string, id: res.body.agent_key.id as string };
    },
    async close() {
      await platform.jobWatch?.close();
      await database.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
