/** What the clip services need beyond the core: storage, the job wake-up and fetch limits. */
import type { Config } from "../../../config.js";
import type { JobKindRegistry } from "../../../jobs/queue-estimate/kinds.js";
import type { JobWatch } from "../../../jobs/watch.js";
import type { ResolvedAddress } from "../../../net/safe-fetch.js";
import type { CoreDeps } from "../../../services/deps.js";
import type { BlobStore } from "../../../storage/blob-store.js";

/** Test seams of the image_url fetch. */
export interface ClipImageFetchSeam {
  /** Test seam for fetchPublicImage's DNS lookup. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Test seam: lets a local image server through the SSRF guard. Never set in production. */
  allowPrivateForTests?: (address: string) => boolean;
  /** ALLOW_LOOPBACK_URLS (development): loopback image servers are reachable. */
  allowLoopback?: boolean;
}

/** What the clip services need from the platform. */
export interface ClipDeps extends CoreDeps {
  storage: BlobStore;
  /** `env` holds the webhook receiver policy (services/webhooks/config.ts). */
  config: Pick<Config, "retentionHours" | "workers"> & Partial<Pick<Config, "env">>;
  publicUrl: string;
  notifyJobs(): Promise<void>;
  /** Wakes `?wait=` readers when a clip changes. */
  jobWatch?: JobWatch;
  /** Every job kind the workers take, for the queue estimate (its workers are shared). */
  jobKinds: Pick<JobKindRegistry, "all" | "cheapestCents">;
  imageFetch?: ClipImageFetchSeam;
}
