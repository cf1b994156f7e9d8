/**
 * The first half of `kinora serve`: check every section of the configuration, then open and
 * migrate the database. Kept apart from server.ts (and light to import) so `kinora serve` can
 * start opening PGlite (~0.6–1 s, much of it waiting on files) while the rest of the service's
 * modules load.
 */
import { type Config, ConfigError } from "./config.js";
import { type Database, openDatabase } from "./db/database.js";
import { migrate } from "./db/migrate.js";
import { metricsConfig } from "./metrics/config.js";
import { loadPaymentsConfig } from "./payments/config.js";
import type { KeyCache } from "./services/key-cache.js";
import { keyCacheFor } from "./services/key-cache-for.js";

/** The database the server opened, and the migrations this start applied. */
export interface OpenedDatabase {
  database: Database;
  /** Migrations this start applied (logged by the server). */
  applied: string[];
  /** Key lookups kept in process: on PGlite only, where `database` reports every write to it. */
  keyCache?: KeyCache;
}

export async function openServerDatabase(config: Config): Promise<OpenedDatabase> {
  // Every section of the configuration is checked before the data directory is touched:
  // the core and engines by loadConfig, payments and metrics here (ConfigError naming the variable).
  metricsConfig(config.env);
  const payments = loadPaymentsConfig(config.env);
  if (payments.x402) {
    const { addressChecksumProblems } = await import("./payments/x402/checksum.js");
    const problems = addressChecksumProblems(payments.x402);
    if (problems.length > 0) {
      throw new ConfigError(`Invalid configuration:\n${problems.map((l) => `  ${l}`).join("\n")}`);
    }
  }
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
    poolSize: config.dbPoolSize,
  });
  try {
    const applied = await migrate(database.db);
    return { ...keyCacheFor(database), applied };
  } catch (err) {
    await database.close();
    throw err;
  }
}
