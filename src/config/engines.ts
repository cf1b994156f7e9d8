/** Which engines workers run for restores and clips: RESTORE_ENGINE, CLIP_ENGINE and theirs. */
import { z } from "zod";
import { invalidSetting } from "./error.js";

const httpUrl = z
  .string()
  .url()
  .regex(/^https?:\/\//, "must be an http(s) URL")
  .optional();
const engine = z.enum(["ffmpeg", "cog"], { error: "must be ffmpeg or cog" }).default("ffmpeg");

/** The engine settings' part of the environment's schema. */
export const EnginesEnv = z.object({
  RESTORE_ENGINE: engine,
  // 120 s: the capacity bench's choice (bench/segments.ts, docs/operations.md): a segment's fixed
  // costs stay under 2 % of its work, and a 2-hour tape still makes 60 units for a fleet.
  RESTORE_SEGMENT_SEC: z.coerce
    .number()
    .refine((n) => n === 0 || (n >= 5 && n <= 3600), "must be 0 (never) or from 5 to 3600")
    .default(120),
  // 0: each segment's ffmpeg takes the threads it finds; 1: one thread (a loop per core).
  RESTORE_SEGMENT_THREADS: z.coerce.number().int().min(0).max(64).default(0),
  RESTORE_COG_URL: httpUrl,
  RESTORE_COG_TOKEN: z.string().min(1).optional(),
  RESTORE_COG_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(10_000)
    .max(86_400_000)
    .default(3 * 3600_000),
  CLIP_ENGINE: engine,
  CLIP_COG_URL: httpUrl,
  CLIP_COG_TOKEN: z.string().min(1).optional(),
  CLIP_COG_TIMEOUT_MS: z.coerce.number().int().min(10_000).max(3_600_000).default(600_000),
  CLIP_COG_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  COG_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
});

type Env = z.infer<typeof EnginesEnv>;

/** The restore engine: local ffmpeg (in segments), or a remote model over the Cog protocol. */
export type RestoreEngineConfig =
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

/** The clip engine: local ffmpeg, or a remote model over the Cog protocol. */
export type ClipEngineConfig =
  | { kind: "ffmpeg" }
  | {
      kind: "cog";
      url: string;
      token: string | undefined;
      timeoutMs: number;
      pollMs: number;
      webhookSecret: string | undefined;
    };

/** Which engines workers run: local ffmpeg, or a remote model over the Cog protocol. */
export interface EnginesConfig {
  restore: RestoreEngineConfig;
  clip: ClipEngineConfig;
}

/** A Cog engine's URL, which that engine cannot run without (ConfigError naming it). */
function cogUrl(engineName: "RESTORE" | "CLIP", url: string | undefined): string {
  if (!url) {
    throw invalidSetting(
      `${engineName}_COG_URL: is required when ${engineName}_ENGINE=cog (http(s) URL of the Cog model)`,
    );
  }
  return url;
}

/** The restore engine's settings (ffmpeg in segments, or a Cog model). */
function restoreEngine(e: Env): RestoreEngineConfig {
  if (e.RESTORE_ENGINE === "ffmpeg") {
    return {
      kind: "ffmpeg",
      segmentSec: e.RESTORE_SEGMENT_SEC,
      segmentThreads: e.RESTORE_SEGMENT_THREADS,
    };
  }
  return {
    kind: "cog",
    url: cogUrl("RESTORE", e.RESTORE_COG_URL),
    token: e.RESTORE_COG_TOKEN,
    timeoutMs: e.RESTORE_COG_TIMEOUT_MS,
  };
}

/** The clip engine's settings (ffmpeg, or a Cog model polled or calling back). */
function clipEngine(e: Env): ClipEngineConfig {
  if (e.CLIP_ENGINE === "ffmpeg") return { kind: "ffmpeg" };
  return {
    kind: "cog",
    url: cogUrl("CLIP", e.CLIP_COG_URL),
    token: e.CLIP_COG_TOKEN,
    timeoutMs: e.CLIP_COG_TIMEOUT_MS,
    pollMs: e.CLIP_COG_POLL_MS,
    webhookSecret: e.COG_WEBHOOK_SECRET,
  };
}

/** Both engines' settings; a Cog engine without its URL is a ConfigError. */
export function enginesConfig(e: Env): EnginesConfig {
  return { restore: restoreEngine(e), clip: clipEngine(e) };
}
