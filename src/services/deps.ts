/** What every service receives: no module singletons, no process.env. */
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { KinoraEvents } from "../domain/events.js";
import type { IdGenerator } from "../domain/ids.js";
import type { Logger } from "../logger.js";
import type { KeyCache } from "./key-cache.js";

/** What every service may use: the database, clock, ids, logger and event hub. */
export interface CoreDeps {
  db: Kysely<DB>;
  clock: () => Date;
  ids: IdGenerator;
  log: Logger;
  /** Where services report what they did (metrics listen); absent: nobody is told. */
  events?: KinoraEvents;
  /**
   * Key lookups kept in process, only where this process sees every write to `db` (PGlite,
   * see key-cache-for.ts); absent: every request reads the rows.
   */
  keyCache?: KeyCache;
}

/** Work a service runs in the background (sweepers, confirmers) until the process stops it. */
export interface BackgroundTask {
  stop(): Promise<void>;
}
