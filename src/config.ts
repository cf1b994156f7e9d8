/**
 * The only reader of process.env. Parsed with zod so a bad value stops the start with a
 * message naming the variable. Areas add their own sections (see config-*.ts).
 */
import path from "node:path";
import { z } from "zod";

const LogLevel = z.enum(["debug", "info", "warn", "error", "silent"]);

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
  WORKERS: z.coerce.number().int().min(0).max(64).default(1),
  WORKER_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  JOB_LEASE_MS: z.coerce.number().int().min(5_000).max(3_600_000).default(60_000),
  JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  RETENTION_HOURS: z.coerce
    .number()
    .min(1)
    .max(24 * 365)
    .default(48),
});

export type Env = z.infer<typeof EnvSchema>;

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
  logLevel: z.infer<typeof LogLevel>;
  shutdownGraceMs: number;
  storage: StorageConfig;
  workers: { inProcess: number; token: string | undefined; leaseMs: number; maxAttempts: number };
  retentionHours: number;
  /** The cleaned environment, for feature modules that parse their own section of it. */
  env: Readonly<Record<string, string>>;
}

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
    logLevel: e.LOG_LEVEL,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    storage,
    workers: {
      inProcess: e.WORKERS,
      token: e.WORKER_TOKEN,
      leaseMs: e.JOB_LEASE_MS,
      maxAttempts: e.JOB_MAX_ATTEMPTS,
    },
    retentionHours: e.RETENTION_HOURS,
    env: cleaned,
  };
}
