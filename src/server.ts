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
import { type Config, LOOPBACK_URLS_ON } from "./config.js";
import { startCoreTasks } from "./core-tasks.js";
import { ApiError } from "./domain/errors.js";
import { createEventHub } from "./domain/events.js";
import { randomId } from "./domain/ids.js";
import type { BackgroundTask, Platform } from "./feature.js";
import { FEATURES } from "./features.js";
import { createJobKindRegistry } from "./jobs/queue-estimate/kinds.js";
import { createJobWatch, type JobWatch } from "./jobs/watch.js";
import { JOBS_CHANNEL } from "./jobs/work.js";
import { createLogger, type Logger } from "./logger.js";
import { loadOrCreateSecret } from "./secrets.js";
import { type OpenedDatabase, openServerDatabase } from "./server-database.js";
import { rateLimiterFor } from "./services/rate-limiter-for.js";
import { createSigner } from "./signing.js";
import { storageFromConfig } from "./storage/from-config.js";
import { giveHeapHeadroomForUploads } from "./storage/heap-headroom.js";
import { type JobSystem, startJobSystem } from "./workers/supervisor.js";

interface RunningServer {
  /** Where it listens (the bound address). */
  url: string;
  /** Where people and callers reach it: PUBLIC_URL, or the listening URL (127.0.0.1 for a wildcard). */
  publicUrl: string;
  close(): Promise<void>;
}

/** The admin token and the signer, each from its setting or its file under DATA_DIR. */
function loadSecrets(config: Config, log: Logger) {
  const admin = loadOrCreateSecret(config.dataDir, "admin-token", config.adminToken);
  if (admin.file) {
    log.info(admin.generated ? "admin token generated" : "admin token loaded", {
      file: admin.file,
    });
  }
  const signing = loadOrCreateSecret(config.dataDir, "signing-secret", config.signingSecret);
  return {
    adminToken: admin.value,
    signer: createSigner(signing.value, config.signingSecretsPrevious),
  };
}

/** The HTTP listener, bound before the app exists; `serveWith` hands it the app. */
interface Listener {
  server: Server;
  url: string;
  publicUrl: string;
  serveWith(handler: (req: Request) => Response | Promise<Response>): void;
}

/**
 * Binds the port first: with PORT=0 the real port, and so the URLs we hand out, are known only
 * after listening. Until the app is built every request gets a 503 from /healthz's rule.
 */
async function listenFirst(config: Config): Promise<Listener> {
  const starting = new ApiError("unavailable", "The service is starting; retry shortly.");
  let handler: (req: Request) => Response | Promise<Response> = () =>
    Response.json(starting.body(), { status: starting.status });
  // @hono/node-server types its server as any of Node's three; without TLS options it is http's.
  // cast: @hono/node-server's serve() returns the http.Server it made (typed as a union of server kinds)
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
  // A TCP listener's address is an AddressInfo (a string only for a pipe, null before listening).
  // cast: a server listening on a TCP port reports an AddressInfo (not a pipe name)
  const address = server.address() as AddressInfo;
  const url = `http://${address.address.includes(":") ? `[${address.address}]` : address.address}:${address.port}`;
  const wildcard = address.address === "0.0.0.0" || address.address === "::";
  const publicUrl = config.publicUrl ?? (wildcard ? `http://127.0.0.1:${address.port}` : url);
  return {
    server,
    url,
    publicUrl,
    serveWith: (h) => {
      handler = h;
    },
  };
}

/** The platform every feature builds on; `wake` is read at each notify (the job system's). */
async function buildPlatform(
  config: Config,
  opened: OpenedDatabase,
  log: Logger,
  publicUrl: string,
  wake: () => () => void,
): Promise<Platform> {
  const { database, keyCache } = opened;
  const { adminToken, signer } = loadSecrets(config, log);
  const platform: Platform = {
    db: database.db,
    clock: () => new Date(),
    ids: randomId,
    log,
    keyCache,
    config,
    database,
    storage: await storageFromConfig(config, publicUrl, signer),
    rateLimiter: rateLimiterFor(database),
    events: createEventHub(),
    jobKinds: createJobKindRegistry(),
    adminToken,
    signer,
    publicUrl,
    async notifyJobs() {
      wake()();
      await sql`SELECT pg_notify(${JOBS_CHANNEL}, '')`.execute(database.db);
    },
  };
  platform.jobWatch = await createJobWatch(database);
  return platform;
}

/** Every feature of `kinora serve`, built on the platform; on failure the server closes. */
async function buildFeatures(platform: Platform, server: Server) {
  try {
    return await Promise.all(FEATURES.map((make) => make(platform)));
  } catch (err) {
    server.close();
    await platform.database.close();
    throw err;
  }
}

/**
 * Starts the service. `opening` is the database already being opened by openServerDatabase
 * (`kinora serve` starts it early, beside loading this module); without it, it is opened here.
 */
export async function startServer(
  config: Config,
  opening: Promise<OpenedDatabase> = openServerDatabase(config),
): Promise<RunningServer> {
  const opened = await opening;
  const { database, applied } = opened;
  const log = createLogger(config.logLevel);
  // An API node receives upload bodies: see heap-headroom.ts for why V8 needs room for them.
  giveHeapHeadroomForUploads(config.uploads.heapGrowingPercent);
  if (applied.length > 0) log.info("migrations applied", { migrations: applied });

  let ready = false;
  const { server, url, publicUrl, serveWith } = await listenFirst(config);
  let wakeLocal = () => {};
  const platform = await buildPlatform(config, opened, log, publicUrl, () => wakeLocal);
  const features = await buildFeatures(platform, server);
  let jobs: JobSystem | undefined;
  const app = buildApp(platform, features, {
    isReady: () => ready,
    workSource: () => jobs?.source,
  });
  serveWith(app.fetch);

  jobs = await startJobSystem({
    database,
    queues: features.flatMap((f) => f.queues ?? []),
    executors: features.flatMap((f) => f.executors ?? []),
    workers: config.workers.inProcess,
    leaseMs: config.workers.leaseMs,
    log,
    nodeId: `node-${randomBytes(3).toString("hex")}`,
    scratchRoot: config.workers.scratchRoot,
  });
  wakeLocal = jobs.source.wake;
  const tasks: BackgroundTask[] = [startCoreTasks(platform)];
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
  if (config.allowLoopbackUrls) log.warn(LOOPBACK_URLS_ON);

  const running = jobs;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= drainAndClose({
      server,
      jobs: running,
      tasks,
      database,
      jobWatch: platform.jobWatch,
      log,
      config,
      setReady: (r) => {
        ready = r;
      },
    });
    return closing;
  };
  return { url, publicUrl, close };
}

/**
 * SIGTERM: keep serving while the jobs drain — /healthz answers 503 so a load balancer moves
 * traffic away, workers claim nothing new, and a running job can still reach this server's
 * own URLs (its input and output links) to finish. A job still running when the grace ends is
 * handed back to the queue without using an attempt. Then the listener closes.
 */
async function drainAndClose(s: {
  server: Server;
  jobs: JobSystem;
  tasks: BackgroundTask[];
  database: { close(): Promise<void> };
  jobWatch?: JobWatch;
  log: Logger;
  config: Config;
  setReady(ready: boolean): void;
}) {
  s.setReady(false);
  s.log.info("shutting down: draining jobs", { grace_ms: s.config.shutdownGraceMs });
  const started = Date.now();
  await s.jobs.stop(s.config.shutdownGraceMs);
  await Promise.all(s.tasks.map((t) => t.stop()));
  const left = Math.max(1000, s.config.shutdownGraceMs - (Date.now() - started));
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      s.server.closeAllConnections();
      resolve();
    }, left);
    s.server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    s.server.closeIdleConnections();
  });
  await s.jobWatch?.close();
  await s.database.close();
  s.log.info("stopped");
}
