/**
 * `kinora serve`: opens the database, migrates, builds the platform and every feature, serves
 * HTTP, runs in-process workers and background tasks; shuts down gracefully on SIGINT/SIGTERM
 * (stop accepting, finish in-flight requests and jobs, stop tasks, close the database).
 */
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { sql } from "kysely";
import { buildApp } from "./app.js";
import type { Config } from "./config.js";
import { openDatabase } from "./db/database.js";
import { migrate } from "./db/migrate.js";
import { randomId } from "./domain/ids.js";
import { FEATURES } from "./features.js";
import { createLogger } from "./logger.js";
import type { BackgroundTask, Platform } from "./platform.js";
import { loadOrCreateSecret } from "./secrets.js";
import { storageFromConfig } from "./storage/from-config.js";
import { startJobSystem } from "./workers/supervisor.js";
import { JOBS_CHANNEL } from "./workers/types.js";

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export async function startServer(config: Config): Promise<RunningServer> {
  const log = createLogger(config.logLevel);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
    poolSize: config.dbPoolSize,
  });
  const applied = await migrate(database.db);
  if (applied.length > 0) log.info("migrations applied", { migrations: applied });

  const admin = loadOrCreateSecret(config.dataDir, "admin-token", config.adminToken);
  if (admin.file) {
    log.info(admin.generated ? "admin token generated" : "admin token loaded", {
      file: admin.file,
    });
  }
  const signing = loadOrCreateSecret(config.dataDir, "signing-secret", config.signingSecret);

  // Bind the port first: with PORT=0 the real port, and so the URLs we hand out, are known
  // only after listening. Until the app is built every request gets a 503 from /healthz's rule.
  let ready = false;
  let handler: (req: Request) => Response | Promise<Response> = () =>
    Response.json({ detail: "The service is starting; retry shortly." }, { status: 503 });
  const server = serve({
    fetch: (req) => handler(req),
    port: config.port,
    hostname: config.host,
  }) as Server;
  // Uploads stream for minutes; Node's default 300 s request timeout would cut them with 408.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.address.includes(":") ? `[${address.address}]` : address.address}:${address.port}`;
  const wildcard = address.address === "0.0.0.0" || address.address === "::";
  const publicUrl = config.publicUrl ?? (wildcard ? `http://127.0.0.1:${address.port}` : url);

  let wakeLocal = () => {};
  const platform: Platform = {
    db: database.db,
    clock: () => new Date(),
    ids: randomId,
    log,
    config,
    database,
    storage: storageFromConfig(config, publicUrl, signing.value),
    adminToken: admin.value,
    signingSecret: signing.value,
    publicUrl,
    async notifyJobs() {
      wakeLocal();
      await sql`SELECT pg_notify(${JOBS_CHANNEL}, '')`.execute(database.db);
    },
  };
  let features: Awaited<ReturnType<(typeof FEATURES)[number]>>[];
  try {
    features = await Promise.all(FEATURES.map((make) => make(platform)));
  } catch (err) {
    server.close();
    await database.close();
    throw err;
  }
  const app = buildApp(platform, features, { isReady: () => ready });
  handler = app.fetch;

  const jobs = await startJobSystem({
    database,
    queues: features.flatMap((f) => f.queues ?? []),
    executors: features.flatMap((f) => f.executors ?? []),
    workers: config.workers.inProcess,
    leaseMs: config.workers.leaseMs,
    log,
    nodeId: `node-${randomBytes(3).toString("hex")}`,
  });
  wakeLocal = jobs.source.wake;
  const tasks: BackgroundTask[] = [];
  for (const feature of features) if (feature.start) tasks.push(await feature.start());

  ready = true;
  log.info("kinora listening", {
    url,
    public_url: publicUrl,
    database: database.backend,
    storage: platform.storage.kind,
    in_process_workers: config.workers.inProcess,
    data_dir: config.dataDir,
  });

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      ready = false;
      log.info("shutting down");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, config.shutdownGraceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      await jobs.stop(config.shutdownGraceMs);
      await Promise.all(tasks.map((t) => t.stop()));
      await database.close();
      log.info("stopped");
    })();
    return closing;
  };
  return { url, close };
}
