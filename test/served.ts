/**
 * The test app served over real HTTP on 127.0.0.1 (port 0), its public URL and local store
 * pointing there, optionally with in-process workers — for tests whose client is a real HTTP
 * client (the MCP SDK, a browser).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { getRequestListener } from "@hono/node-server";
import { mcpFeature } from "../src/features/mcp.js";
import { paymentsFeature } from "../src/features/payments.js";
import { clipsFeature } from "../src/kinds/clips/kind.js";
import { previewFeature } from "../src/kinds/preview/kind.js";
import { restoreFeature } from "../src/kinds/restore/kind.js";
import { silentLogger } from "../src/logger.js";
import { createLocalBlobStore } from "../src/storage/local-store.js";
import { type JobSystem, startJobSystem } from "../src/workers/supervisor.js";
import { createTestApp, type TestApp, type TestAppOptions } from "./app.js";
import { stubClassifier } from "./clips/helpers.js";

/**
 * The features of a node that answers but runs no jobs: restores, clips and previews without
 * executors (jobs wait in their queues), payments and MCP — what most surface tests serve.
 */
export function apiOnlyFeatures(): NonNullable<TestAppOptions["features"]> {
  return [
    restoreFeature({ noExecutor: true }),
    clipsFeature({ classifier: stubClassifier().classifier, noExecutor: true }),
    previewFeature({ noExecutor: true }),
    paymentsFeature(),
    mcpFeature(),
  ];
}

export interface ServedApp {
  url: string;
  t: TestApp;
  close(): Promise<void>;
}

export async function serveTestApp(
  opts: TestAppOptions & { workers?: number } = {},
): Promise<ServedApp> {
  const dir = mkdtempSync(path.join(tmpdir(), "kinora-served-"));
  let listener: (req: IncomingMessage, res: ServerResponse) => void = (_q, s) => s.end();
  const server = createServer((req, res) => listener(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const t = await createTestApp({
    ...opts,
    platform: (p) => {
      const served = {
        ...p,
        publicUrl: url,
        storage: createLocalBlobStore({
          rootDir: path.join(dir, "files"),
          publicBaseUrl: url,
          signer: p.signer,
        }),
      };
      return opts.platform ? opts.platform(served) : served;
    },
  });
  listener = getRequestListener(t.app.fetch);
  let jobs: JobSystem | undefined;
  if (opts.workers) {
    jobs = await startJobSystem({
      database: t.database,
      queues: t.features.flatMap((f) => f.queues ?? []),
      executors: t.features.flatMap((f) => f.executors ?? []),
      workers: opts.workers,
      leaseMs: 60_000,
      log: silentLogger,
      nodeId: "served",
    });
  }
  return {
    url,
    t,
    async close() {
      await jobs?.stop(2000);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
