/** What the restore services need beyond the core: storage, job limits and the job wake-ups. */
import type { Config } from "../../config.js";
import type { JobWatch } from "../../jobs/watch.js";
import type { BlobStore } from "../../storage/blob-store.js";
import type { CoreDeps } from "../deps.js";

export interface RestoreDeps extends CoreDeps {
  storage: BlobStore;
  config: Pick<Config, "retentionHours" | "workers">;
  /** Tells workers (this process and, via NOTIFY, others) that a job became claimable. */
  notifyJobs(): Promise<void>;
  /** Wakes `?wait=` readers when a job changes; absent: reads answer at once. */
  jobWatch?: JobWatch;
}
