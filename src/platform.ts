/**
 * The platform every feature builds on, and the Feature seam through which restore, clips and
 * payments plug in their routes, job queues, executors and background tasks — so adding an
 * area is one line in features.ts, not edits across app.ts and server.ts.
 */
import type { Config } from "./config.js";
import type { Database } from "./db/database.js";
import type { EventHub } from "./domain/events.js";
import type { Router } from "./http/router.js";
import type { JobEngineDeps } from "./jobs/definition.js";
import type { JobWatch } from "./jobs/watch.js";
import type { Executor, JobQueue } from "./jobs/work.js";
import type { CoreDeps } from "./services/deps.js";
import type { RateLimiter } from "./services/rate-limit.js";
import type { BlobStore } from "./storage/blob-store.js";
import type { LocalBlobStore } from "./storage/local-store.js";

export interface Platform extends CoreDeps {
  config: Config;
  database: Database;
  storage: BlobStore | LocalBlobStore;
  adminToken: string;
  /** HMAC key for signed URLs and tokens kinora issues itself. */
  signingSecret: string;
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
}

export interface BackgroundTask {
  stop(): Promise<void>;
}

export interface Feature {
  name: string;
  routes?(app: Router): void;
  queues?: JobQueue[];
  executors?: Executor[];
  /** Background work (sweepers, confirmers); started by `kinora serve`, not by route tests. */
  start?(): Promise<BackgroundTask>;
}

export type FeatureFactory = (platform: Platform) => Feature | Promise<Feature>;

/** What the job engine needs, from the platform. */
export function jobEngineDeps(p: Platform): JobEngineDeps {
  return {
    db: p.db,
    clock: p.clock,
    log: p.log,
    storage: p.storage,
    signingSecret: p.signingSecret,
    publicUrl: p.publicUrl,
    retentionHours: p.config.retentionHours,
    notifyJobs: () => p.notifyJobs(),
    events: p.events,
  };
}
