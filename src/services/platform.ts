/**
 * The shared services every surface (REST, MCP, web pages, workers) is built on, as one bundle.
 * Surfaces and composition take it whole; services themselves take narrow slices of it
 * (RestoreDeps, ClipDeps, PaymentsPlatform), which this bundle satisfies structurally.
 */
import type { Config } from "../config.js";
import type { Database } from "../db/database.js";
import type { EventHub } from "../domain/events.js";
import type { JobKindRegistry } from "../jobs/queue-estimate/kinds.js";
import type { JobWatch } from "../jobs/watch.js";
import type { Signer } from "../signing.js";
import type { BlobStore } from "../storage/blob-store.js";
import type { LocalBlobStore } from "../storage/local-store.js";
import type { CoreDeps } from "./deps.js";
import type { RateLimiter } from "./rate-limit.js";

/** Everything the server builds once and the features share. */
export interface Platform extends CoreDeps {
  config: Config;
  database: Database;
  storage: BlobStore | LocalBlobStore;
  adminToken: string;
  /** Signs and checks every token kinora issues (purpose, expiry, key id for rotation). */
  signer: Signer;
  /** Base of every URL handed to callers (upload links, checkout pages, webhooks). */
  publicUrl: string;
  /** Tells workers (this process and, via NOTIFY, others) that a job became claimable. */
  notifyJobs(): Promise<void>;
  /** Wakes requests waiting for a job to change (`?wait=`); absent: reads answer at once. */
  jobWatch?: JobWatch;
  /** Request counters: in the database on PostgreSQL (shared by all nodes), in memory on PGlite. */
  rateLimiter: RateLimiter;
  /** What the services, routes and job engine report; features (metrics) subscribe. */
  events: EventHub;
  /**
   * The job kinds whose queues this server serves (each kind's feature registers its queue):
   * the queue estimate counts every kind's jobs, since the workers take them all.
   */
  jobKinds: JobKindRegistry;
}
