/**
 * The only reader of process.env. Parsed with zod so a bad value stops the start with a
 * message naming the variable. Areas add their own sections (see config-*.ts).
 */
import path from "node:path";
import { z } from "zod";
import { S3_PART_LIMITS } from "./domain/uploads.js";

const LogLevel = z.enum(["debug", "info", "warn", "error", "silent"]);

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;
const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: MIB,
  gib: GIB,
  tib: 1024 ** 4,
};

/**
 * A size in bytes, written as a whole number with an optional unit (`268435456`, `256MiB`,
 * `50GB`; KiB/MiB/GiB/TiB are powers of 1024, KB/MB/GB/TB of 1000), from `min` to `max`.
 */
function byteSize(min: number, max: number, fallback: number) {
  const show = (n: number) => (n % GIB === 0 ? `${n / GIB} GiB` : `${n / MIB} MiB`);
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return fallback;
      const m = /^\s*(\d{1,16})\s*([a-z]*)\s*$/i.exec(v);
      const unit = m ? UNITS[(m[2] ?? "").toLowerCase()] : undefined;
      const n = m && unit !== undefined ? Number(m[1]) * unit : Number.NaN;
      if (!Number.isSafeInteger(n) || n < min || n > max) {
        ctx.addIssue({
          code: "custom",
          message: `must be a size from ${show(min)} to ${show(max)}, in bytes or with a unit such as 64MiB or 50GiB; got ${JSON.stringify(v.slice(0, 40))}`,
        });
        return z.NEVER;
      }
      return n;
    });
}

const EnvSchema = z.object({
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
  SIGNING_SECRET_PREVIOUS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine(
      (list) => list.every((s) => s.length >= 32),
      "every secret must be at least 32 characters",
    ),
  LOG_LEVEL: LogLevel.default("info"),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(15_000),
  STORAGE: z.enum(["local", "s3"]).default("local"),
  STORAGE_DIR: z.string().min(1).optional(),
  S3_BUCKET: z.string().min(3).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ENDPOINT: z.string().url().optional(),
  S3_PUBLIC_ENDPOINT: z.string().url().optional(),
  S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).default("false"),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  UPLOAD_SINGLE_MAX_BYTES: byteSize(5 * MIB, 5 * GIB, 256 * MIB),
  UPLOAD_PART_BYTES: byteSize(MIB, 5 * GIB, 64 * MIB),
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
  TRUST_PROXY: z.enum(["true", "false"], { error: "must be true or false" }).default("false"),
  RATE_LIMITS: z.enum(["on", "off"], { error: "must be on or off" }).default("on"),
  RATE_LIMIT_REGISTER_PER_HOUR: z.coerce.number().int().min(1).max(100_000).default(30),
  RATE_LIMIT_SIGNIN_PER_MIN: z.coerce.number().int().min(1).max(10_000).default(10),
  RATE_LIMIT_CREATE_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(30),
  RATE_LIMIT_QUOTE_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(300),
  RATE_LIMIT_SPEND_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(120),
  RATE_LIMIT_KEY_PER_MIN: z.coerce.number().int().min(1).max(10_000_000).default(6000),
  MAX_AGENT_KEYS: z.coerce.number().int().min(1).max(100_000).default(100),
  IDEMPOTENCY_IN_FLIGHT_SEC: z.coerce.number().int().min(5).max(86_400).default(120),
  PURCHASE_APPROVAL_MINUTES: z.coerce.number().int().min(1).max(10_080).default(30),
  WORKER_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  JOB_LEASE_MS: z.coerce.number().int().min(5_000).max(3_600_000).default(60_000),
  JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  RETENTION_HOURS: z.coerce
    .number()
    .min(1)
    .max(24 * 365)
    .default(48),
  RESTORE_ENGINE: z.enum(["ffmpeg", "cog"], { error: "must be ffmpeg or cog" }).default("ffmpeg"),
  // 120 s: the capacity bench's choice (bench/segments.ts, docs/operations.md): a segment's fixed
  // costs stay under 2 % of its work, and a 2-hour tape still makes 60 units for a fleet.
  RESTORE_SEGMENT_SEC: z.coerce
    .number()
    .refine((n) => n === 0 || (n >= 5 && n <= 3600), "must be 0 (never) or from 5 to 3600")
    .default(120),
  // 0: each segment's ffmpeg takes the threads it finds; 1: one thread (a loop per core).
  RESTORE_SEGMENT_THREADS: z.coerce.number().int().min(0).max(64).default(0),
  RESTORE_COG_URL: z
    .string()
    .url()
    .regex(/^https?:\/\//, "must be an http(s) URL")
    .optional(),
  RESTORE_COG_TOKEN: z.string().min(1).optional(),
  RESTORE_COG_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(10_000)
    .max(86_400_000)
    .default(3 * 3600_000),
  CLIP_ENGINE: z.enum(["ffmpeg", "cog"], { error: "must be ffmpeg or cog" }).default("ffmpeg"),
  CLIP_COG_URL: z
    .string()
    .url()
    .regex(/^https?:\/\//, "must be an http(s) URL")
    .optional(),
  CLIP_COG_TOKEN: z.string().min(1).optional(),
  CLIP_COG_TIMEOUT_MS: z.coerce.number().int().min(10_000).max(3_600_000).default(600_000),
  CLIP_COG_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  COG_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  MCP_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine(
      (list) => list.every(isWebOrigin),
      "must be comma-separated origins such as https://app.example or http://localhost:6274 (scheme, host and port only)",
    ),
  ALLOW_LOOPBACK_URLS: z
    .enum(["1", "0", "true", "false"], { error: "must be 1 or 0" })
    .default("0"),
  NODE_ENV: z.string().optional(),
});

/** What the server and a worker log at start while ALLOW_LOOPBACK_URLS is on. */
export const LOOPBACK_URLS_ON =
  "ALLOW_LOOPBACK_URLS is on (development only): video_url, image_url and webhook receivers may be on this machine's loopback (127.0.0.0/8, ::1, localhost); private and metadata addresses stay refused";

/**
 * Whether ALLOW_LOOPBACK_URLS is on in a cleaned environment (Config.env); loadConfig has
 * already refused it with NODE_ENV=production. For areas that read their own section of env.
 */
export function allowsLoopbackUrls(env: Readonly<Record<string, string>>): boolean {
  return env.ALLOW_LOOPBACK_URLS === "1" || env.ALLOW_LOOPBACK_URLS === "true";
}

/** `scheme://host[:port]` of an http(s) page, nothing more (what a browser sends as Origin). */
function isWebOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return /^https?:$/.test(url.protocol) && value.replace(/\/$/, "").toLowerCase() === url.origin;
  } catch {
    return false;
  }
}

type Env = z.infer<typeof EnvSchema>;

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
  workers: {
    inProcess: number;
    token: string | undefined;
    leaseMs: number;
    maxAttempts: number;
    /** Root of workers' scratch directories (default: the OS temp dir's kinora-scratch). */
    scratchRoot: string | undefined;
  };
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

/** UPLOAD_SINGLE_MAX_BYTES and UPLOAD_PART_BYTES. */
export interface UploadsConfig {
  /** A declared size above this gets an upload plan in parts instead of one upload link. */
  singleMaxBytes: number;
  /** The size of every part but the last (at least 5 MiB on S3; grown to fit 10,000 parts). */
  partBytes: number;
}

/** Where files live: a local directory or an S3 bucket. */
export type StorageConfig =
  | { kind: "local"; dir: string | undefined }
  | {
      kind: "s3";
      bucket: string;
      region: string;
      endpoint: string | undefined;
      publicEndpoint: string | undefined;
      forcePathStyle: boolean;
      accessKeyId: string | undefined;
      secretAccessKey: string | undefined;
    };

/** Requests per window for each limited route family (see README, Rate limits). */
export interface RateLimitsConfig {
  /** RATE_LIMITS=off turns every limit off (behind a limiter of the operator's own). */
  enabled: boolean;
  oauthRegister: { max: number; windowMs: number };
  signIn: { max: number; windowMs: number };
  /** Unauthenticated creates (wallets, checkout-paid jobs, checkouts), per client address. */
  create: { max: number; windowMs: number };
  /** Quotes, per client address. */
  quote: { max: number; windowMs: number };
  /** Spending requests (creates, top-ups, new keys, MCP spending tools), per key. */
  spend: { max: number; windowMs: number };
  /** Every request made with a key or token, per key. */
  key: { max: number; windowMs: number };
}

/** Which engines workers run: local ffmpeg, or a remote model over the Cog protocol. */
interface EnginesConfig {
  restore:
    | {
        kind: "ffmpeg";
        /**
         * RESTORE_SEGMENT_SEC: a video at least twice this long is restored in segments of about
         * this length, side by side on every worker; 0: always in one piece.
         */
        segmentSec: number;
        /** RESTORE_SEGMENT_THREADS: each segment's ffmpeg threads; 0: ffmpeg's own choice. */
        segmentThreads: number;
      }
    | { kind: "cog"; url: string; token: string | undefined; timeoutMs: number };
  clip:
    | { kind: "ffmpeg" }
    | {
        kind: "cog";
        url: string;
        token: string | undefined;
        timeoutMs: number;
        pollMs: number;
        webhookSecret: string | undefined;
      };
}

/** A setting is missing or wrong; the message names it (the server does not start). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
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
  if (e.STORAGE === "s3" && !e.S3_BUCKET) {
    throw new ConfigError("Invalid configuration:\n  S3_BUCKET: is required when STORAGE=s3");
  }
  if ((e.S3_ACCESS_KEY_ID === undefined) !== (e.S3_SECRET_ACCESS_KEY === undefined)) {
    throw new ConfigError(
      "Invalid configuration:\n  S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both, or neither to use the AWS default credential chain",
    );
  }
  for (const [engine, url] of [
    ["RESTORE", e.RESTORE_COG_URL],
    ["CLIP", e.CLIP_COG_URL],
  ] as const) {
    if (e[`${engine}_ENGINE`] === "cog" && !url) {
      throw new ConfigError(
        `Invalid configuration:\n  ${engine}_COG_URL: is required when ${engine}_ENGINE=cog (http(s) URL of the Cog model)`,
      );
    }
  }
  if (e.STORAGE === "s3" && e.UPLOAD_PART_BYTES < S3_PART_LIMITS.minPartBytes) {
    throw new ConfigError(
      `Invalid configuration:\n  UPLOAD_PART_BYTES: must be at least 5 MiB (${S3_PART_LIMITS.minPartBytes}) with STORAGE=s3: S3 refuses smaller parts (all but the last)`,
    );
  }
  const allowLoopbackUrls = allowsLoopbackUrls(cleaned);
  if (allowLoopbackUrls && e.NODE_ENV === "production") {
    throw new ConfigError(
      "Invalid configuration:\n  ALLOW_LOOPBACK_URLS: is refused when NODE_ENV=production. It lets video_url, image_url and webhooks reach this machine's own loopback services (127.0.0.1, ::1, localhost) and is for local development only: remove it from a production server.",
    );
  }
  const storage: StorageConfig =
    e.STORAGE === "s3"
      ? {
          kind: "s3",
          bucket: e.S3_BUCKET as string,
          region: e.S3_REGION,
          endpoint: e.S3_ENDPOINT,
          publicEndpoint: e.S3_PUBLIC_ENDPOINT,
          forcePathStyle: e.S3_FORCE_PATH_STYLE === "true",
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
        }
      : { kind: "local", dir: e.STORAGE_DIR ? path.resolve(e.STORAGE_DIR) : undefined };
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
    storage,
    uploads: { singleMaxBytes: e.UPLOAD_SINGLE_MAX_BYTES, partBytes: e.UPLOAD_PART_BYTES },
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
    engines: enginesConfig(e),
    trustProxy: e.TRUST_PROXY === "true",
    rateLimits: {
      enabled: e.RATE_LIMITS === "on",
      oauthRegister: { max: e.RATE_LIMIT_REGISTER_PER_HOUR, windowMs: 3600_000 },
      signIn: { max: e.RATE_LIMIT_SIGNIN_PER_MIN, windowMs: 60_000 },
      create: { max: e.RATE_LIMIT_CREATE_PER_MIN, windowMs: 60_000 },
      quote: { max: e.RATE_LIMIT_QUOTE_PER_MIN, windowMs: 60_000 },
      spend: { max: e.RATE_LIMIT_SPEND_PER_MIN, windowMs: 60_000 },
      key: { max: e.RATE_LIMIT_KEY_PER_MIN, windowMs: 60_000 },
    },
    maxAgentKeys: e.MAX_AGENT_KEYS,
    idempotencyInFlightMs: e.IDEMPOTENCY_IN_FLIGHT_SEC * 1000,
    purchaseApprovalTtlMs: e.PURCHASE_APPROVAL_MINUTES * 60_000,
    mcpAllowedOrigins: e.MCP_ALLOWED_ORIGINS,
    allowLoopbackUrls,
    env: cleaned,
  };
}

function enginesConfig(e: Env): EnginesConfig {
  return {
    restore:
      e.RESTORE_ENGINE === "cog"
        ? {
            kind: "cog",
            url: e.RESTORE_COG_URL as string,
            token: e.RESTORE_COG_TOKEN,
            timeoutMs: e.RESTORE_COG_TIMEOUT_MS,
          }
        : {
            kind: "ffmpeg",
            segmentSec: e.RESTORE_SEGMENT_SEC,
            segmentThreads: e.RESTORE_SEGMENT_THREADS,
          },
    clip:
      e.CLIP_ENGINE === "cog"
        ? {
            kind: "cog",
            url: e.CLIP_COG_URL as string,
            token: e.CLIP_COG_TOKEN,
            timeoutMs: e.CLIP_COG_TIMEOUT_MS,
            pollMs: e.CLIP_COG_POLL_MS,
            webhookSecret: e.COG_WEBHOOK_SECRET,
          }
        : { kind: "ffmpeg" },
  };
}
