/**
 * A served kinora for tests that follow restores as they run: the stepped restore engine (known
 * steps and pace, ./stepped.ts) with a quick worker, clips (no executor), payments and MCP; a
 * plain JSON `rest` call; and pre-agreed agent keys of fresh wallets. Registers its own
 * beforeAll/afterAll.
 */
import { afterAll, beforeAll } from "vitest";
import { mcpFeature } from "../../src/features/mcp.js";
import { paymentsFeature } from "../../src/features/payments.js";
import { clipsFeature } from "../../src/kinds/clips/kind.js";
import { stubClassifier } from "../clips/helpers.js";
import type { Json } from "../mcp/helpers.js";
import { type ServedApp, serveTestApp } from "../served.js";
import { startQuickWorker, steppedRestoreFeature } from "./stepped.js";

export interface SteppedServer {
  /** The served app (set once the suite's beforeAll ran). */
  readonly s: ServedApp;
  /** One JSON request over HTTP, with `key` as Bearer when given. */
  rest(
    method: string,
    path: string,
    opts?: { key?: string; body?: unknown },
  ): Promise<{ status: number; body: Json }>;
  /** A pre-agreed agent key ($50 limit) of a fresh wallet with $100, and the wallet's key. */
  agentKey(): Promise<{ key: string; owner: string }>;
}

/** Serves the app for this test file; restores take `steps` × `stepMs`. */
export function useSteppedServer(opts: {
  steps: number;
  stepMs: number;
  workerId: string;
}): SteppedServer {
  let s: ServedApp | undefined;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    s = await serveTestApp({
      features: [
        steppedRestoreFeature(opts.steps, opts.stepMs),
        clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
        paymentsFeature(),
        mcpFeature(),
      ],
    });
    stop = await startQuickWorker(s.t, opts.workerId);
  });
  afterAll(async () => {
    await stop?.();
    await s?.close();
  });
  const served = (): ServedApp => {
    if (!s) throw new Error("the stepped server is not started yet (use it inside tests)");
    return s;
  };
  const rest: SteppedServer["rest"] = async (method, path, o = {}) => {
    const headers: Record<string, string> = {};
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${served().url}${path}`, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  return {
    get s() {
      return served();
    },
    rest,
    async agentKey() {
      const owner = await served().t.newWallet(10_000);
      const made = await rest("POST", "/wallet/keys", {
        key: owner.key,
        body: { limit_cents: 5000, ask_before_spending: false },
      });
      return { key: made.body.key as string, owner: owner.key };
    },
  };
}
