/** How jobs run: workers and their leases, retention, and the restore kind's operator limits. */
import path from "node:path";
import { z } from "zod";
import { byteSize, GIB, MIB } from "./values.js";

/** The job settings' part of the environment's schema. */
export const JobsEnv = z.object({
  // The restore kind's ceilings (kinds/restore/rules/limits.ts RESTORE_LIMIT_CEILINGS, held equal by
  // config.test.ts): S3's largest object and two days of video.
  RESTORE_MAX_SIZE_BYTES: byteSize(MIB, 5 * 1024 ** 4, 50 * GIB),
  RESTORE_MAX_DURATION_SEC: z.coerce
    .number()
    .int()
    .min(60)
    .max(48 * 3600)
    .default(6 * 3600),
  WORKERS: z.coerce.number().int().min(0).max(64).default(1),
  SCRATCH_DIR: z.string().min(1).optional(),
  WORKER_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  JOB_LEASE_MS: z.coerce.number().int().min(5_000).max(3_600_000).default(60_000),
  JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  RETENTION_HOURS: z.coerce
    .number()
    .min(1)
    .max(24 * 365)
    .default(48),
});

/** Who runs jobs and how long a worker holds one (WORKERS, WORKER_TOKEN, JOB_*, SCRATCH_DIR). */
export interface WorkersConfig {
  inProcess: number;
  token: string | undefined;
  leaseMs: number;
  maxAttempts: number;
  /** Root of workers' scratch directories (default: the OS temp dir's kinora-scratch). */
  scratchRoot: string | undefined;
}

/** The job settings of the Config: restore limits, workers, retention. */
export function jobsConfig(e: z.infer<typeof JobsEnv>): {
  restoreLimits: { maxDurationSec: number; maxSizeBytes: number };
  workers: WorkersConfig;
  retentionHours: number;
} {
  return {
    restoreLimits: {
      maxDurationSec: e.RESTORE_MAX_DURATION_SEC,
      maxSizeBytes: e.RESTORE_MAX_SIZE_BYTES,
    },
    workers: {
      inProcess: e.WORKERS,
      token: e.WORKER_TOKEN,
      leaseMs: e.JOB_LEASE_MS,
      maxAttempts: e.JOB_MAX_ATTEMPTS,
      scratchRoot: e.SCRATCH_DIR ? path.resolve(e.SCRATCH_DIR) : undefined,
    },
    retentionHours: e.RETENTION_HOURS,
  };
}
