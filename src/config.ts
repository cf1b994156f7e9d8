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
}

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
  const parsed = EnvSchema.safeParse(cleanEnv(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
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
  };
}
