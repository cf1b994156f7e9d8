/**
 * The only reader of process.env. Parsed with zod so a bad value stops the start with a
 * message naming the variable. Each area's settings — their schema, their checks, their part of
 * the Config — are in config/<area>.ts; loadConfig composes them. Features add their own
 * sections from Config.env (payments/config.ts, metrics/config.ts …).
 */
import path from "node:path";
import { z } from "zod";
import { type EnginesConfig, EnginesEnv, enginesConfig } from "./config/engines.js";
import { ConfigError } from "./config/error.js";
import { JobsEnv, jobsConfig, type WorkersConfig } from "./config/jobs.js";
import { type RateLimitsConfig, RateLimitsEnv, rateLimitsConfig } from "./config/rate-limits.js";
import { ReachEnv, reachConfig } from "./config/reach.js";
import {
  type StorageConfig,
  StorageEnv,
  storageConfig,
  type UploadsConfig,
} from "./config/storage.js";
import { commaList } from "./config/values.js";

export { ConfigError } from "./config/error.js";
export type { RateLimitsConfig } from "./config/rate-limits.js";
export { allowsLoopbackUrls, LOOPBACK_URLS_ON } from "./config/reach.js";
export type { StorageConfig, UploadsConfig } from "./config/storage.js";

const LogLevel = z.enum(["debug", "info", "warn", "error", "silent"]);

/** The server's own settings: where it listens, its database, its secrets, its policies. */
const ServerEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default("127.0.0.1"),
  PUBLIC_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
    .optional(),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  SIGNING_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SIGNING_SECRET_PREVIOUS: commaList().refine(
    (list) => list.every((s) => s.length >= 32),
    "every secret must be at least 32 characters",
  ),
  LOG_LEVEL: LogLevel.default("info"),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(15_000),
  MAX_AGENT_KEYS: z.coerce.number().int().min(1).max(100_000).default(100),
  IDEMPOTENCY_IN_FLIGHT_SEC: z.coerce.number().int().min(5).max(86_400).default(120),
  PURCHASE_APPROVAL_MINUTES: z.coerce.number().int().min(1).max(10_080).default(30),
});

/** Every setting kinora reads itself, area by area. */
const EnvSchema = z.object({
  ...ServerEnv.shape,
  ...StorageEnv.shape,
  ...JobsEnv.shape,
  ...RateLimitsEnv.shape,
  ...EnginesEnv.shape,
  ...ReachEnv.shape,
});

/** The server's settings, parsed and checked once from the environment. */
export interface Config {
  port: number;
  host: string;
  /** Base of every URL we hand out (upload links, checkout pages). */
  publicUrl: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  dbPoolSize: number;
  adminToken: string | undefined;
  signingSecret: string | undefined;
  /** Secrets signed with before a rotation: their tokens verify until they expire. */
  signingSecretsPrevious: string[];
  logLevel: z.infer<typeof LogLevel>;
  shutdownGraceMs: number;
  storage: StorageConfig;
  /** How callers send files: one PUT up to `singleMaxBytes`, in parts of `partBytes` above it. */
  uploads: UploadsConfig;
  /** The longest and largest video a restore takes (operator settings; defaults 6 h, 50 GiB). */
  restoreLimits: { maxDurationSec: number; maxSizeBytes: number };
  workers: WorkersConfig;
  retentionHours: number;
  engines: EnginesConfig;
  /** Take the client address from X-Forwarded-For (behind a proxy you run). */
  trustProxy: boolean;
  rateLimits: RateLimitsConfig;
  /** Active (unrevoked) agent keys and connected apps a wallet may have. */
  maxAgentKeys: number;
  /** An unfinished Idempotency-Key record older than this may be claimed again. */
  idempotencyInFlightMs: number;
  /**
   * How long the owner has to answer a purchase an asking key waits for, and then how long the
   * agent has to make an approved purchase (PURCHASE_APPROVAL_MINUTES).
   */
  purchaseApprovalTtlMs: number;
  /** Browser origins besides PUBLIC_URL's that may call /mcp (others get 403). */
  mcpAllowedOrigins: string[];
  /**
   * Development only (ALLOW_LOOPBACK_URLS=1, refused with NODE_ENV=production): a caller's
   * `video_url`, `image_url` and webhook receivers may be on this machine's loopback
   * (127.0.0.0/8, ::1, localhost). Private, link-local and metadata addresses stay refused.
   */
  allowLoopbackUrls: boolean;
  /** The cleaned environment, for feature modules that parse their own section of it. */
  env: Readonly<Record<string, string>>;
}

/** Treats empty strings as unset, the way operators write `FOO=` in env files. */
function cleanEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== "") out[k] = v;
  return out;
}

/** Reads and checks every setting from the environment; throws ConfigError naming what is wrong. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = cleanEnv(env);
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const files = storageConfig(e);
  const engines = enginesConfig(e);
  const reach = reachConfig(e, cleaned);
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ""),
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    dbPoolSize: e.DB_POOL_SIZE,
    adminToken: e.ADMIN_TOKEN,
    signingSecret: e.SIGNING_SECRET,
    signingSecretsPrevious: e.SIGNING_SECRET_PREVIOUS,
    logLevel: e.LOG_LEVEL,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    ...files,
    ...jobsConfig(e),
    engines,
    rateLimits: rateLimitsConfig(e),
    maxAgentKeys: e.MAX_AGENT_KEYS,
    idempotencyInFlightMs: e.IDEMPOTENCY_IN_FLIGHT_SEC * 1000,
    purchaseApprovalTtlMs: e.PURCHASE_APPROVAL_MINUTES * 60_000,
    ...reach,
    env: cleaned,
  };
}
