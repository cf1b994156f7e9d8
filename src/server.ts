/**
 * `kinora serve`: opens the database, migrates, builds the app and listens; shuts down
 * gracefully on SIGINT/SIGTERM (stop accepting, finish in-flight requests, stop workers,
 * close the database).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { buildApp } from "./app.js";
import type { Config } from "./config.js";
import { openDatabase } from "./db/database.js";
import { migrate } from "./db/migrate.js";
import { randomId } from "./domain/ids.js";
import { createLogger } from "./logger.js";
import { loadOrCreateSecret } from "./secrets.js";

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

  let ready = false;
  const app = buildApp(
    { db: database.db, clock: () => new Date(), ids: randomId, log, adminToken: admin.value },
    { isReady: () => ready },
  );

  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.address.includes(":") ? `[${address.address}]` : address.address}:${address.port}`;
  ready = true;
  log.info("kinora listening", {
    url,
    public_url: config.publicUrl ?? url,
    database: database.backend,
    data_dir: config.databaseUrl ? undefined : config.dataDir,
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
      await database.close();
      log.info("stopped");
    })();
    return closing;
  };
  return { url, close };
}
