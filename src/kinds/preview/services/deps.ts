/** What the preview services use of the platform. */
import type { Config } from "../../../config.js";
import type { Platform } from "../../../services/platform.js";

/** The platform's parts the preview services use (the platform satisfies it whole). */
export type PreviewDeps = Pick<
  Platform,
  | "db"
  | "clock"
  | "ids"
  | "log"
  | "events"
  | "storage"
  | "notifyJobs"
  | "jobWatch"
  | "jobKinds"
  | "rateLimiter"
> & {
  config: Pick<Config, "workers" | "restoreLimits" | "uploads" | "env" | "allowLoopbackUrls">;
};
