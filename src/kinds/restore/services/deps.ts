/** What the restore services need beyond the core: storage, job limits and the job wake-ups. */
import type { Config } from "../../../config.js";
import type { JobKindRegistry } from "../../../jobs/queue-estimate/kinds.js";
import type { JobWatch } from "../../../jobs/watch.js";
import type { TargetGuard } from "../../../net/public-target.js";
import type { CoreDeps } from "../../../services/deps.js";
import type { BlobStore } from "../../../storage/blob-store.js";

/**
 * How a `video_url` is reached: the address guard's test seams (a local server through the
 * SSRF check) and, for the worker's fetch, shorter caps. Never set in production.
 */
export interface VideoFetchSeam extends TargetGuard {
  /** The whole fetch's deadline (default RESTORE_FETCH.timeoutMs). */
  timeoutMs?: number;
  /** How long the server may send nothing (default RESTORE_FETCH.idleMs). */
  idleMs?: number;
}

/** What the restore services need from the platform. */
export interface RestoreDeps extends CoreDeps {
  storage: BlobStore;
  /** `env` holds the webhook receiver policy (services/webhooks/config.ts). */
  config: Pick<Config, "retentionHours" | "workers" | "restoreLimits" | "uploads"> &
    Partial<Pick<Config, "env">>;
  /** Tells workers (this process and, via NOTIFY, others) that a job became claimable. */
  notifyJobs(): Promise<void>;
  /** Wakes `?wait=` readers when a job changes; absent: reads answer at once. */
  jobWatch?: JobWatch;
  /** Every job kind the workers take, for the queue estimate (its workers are shared). */
  jobKinds: Pick<JobKindRegistry, "all" | "cheapestCents">;
  /** Test seam for the check of a video_url at creation. */
  videoFetch?: VideoFetchSeam;
}
