/**
 * The platform every feature builds on, and the Feature seam through which restore, clips and
 * payments plug in their routes, job queues, executors and background tasks — so adding an
 * area is one line in features.ts, not edits across app.ts and server.ts.
 */
import type { Config } from "./config.js";
import type { Database } from "./db/database.js";
import type { Router } from "./http/router.js";
import type { CoreDeps } from "./services/deps.js";
import type { BlobStore } from "./storage/blob-store.js";
import type { LocalBlobStore } from "./storage/local-store.js";
import type { Executor, JobQueue } from "./workers/types.js";

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
