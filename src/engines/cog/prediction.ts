/**
 * The Cog prediction object (also Replicate's): shared by the client, the webhook receiver
 * and the waiter. Servers differ in which fields they send (Cog's 202 carries only `id` and
 * `status`), so everything but `status` is optional on the wire.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";

const PREDICTION_STATUSES = ["starting", "processing", "succeeded", "failed", "canceled"] as const;
type PredictionStatus = (typeof PREDICTION_STATUSES)[number];
type TerminalStatus = "succeeded" | "failed" | "canceled";

/** Webhook event names for `webhook_events_filter`. */
const WEBHOOK_EVENTS = ["start", "output", "logs", "completed"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A Cog prediction as its server reports it. */
export interface Prediction {
  id: string;
  status: PredictionStatus;
  input?: Record<string, unknown>;
  output?: unknown;
  error?: string | null;
  logs?: string | null;
  metrics?: Record<string, unknown> | null;
  created_at?: string | null;
  started_at?: string | null;
  completed_at?: string | null;
}

/** What `run` and `PredictionWaiter.wait` resolve with: a terminal prediction, normalised. */
export interface FinalPrediction {
  id: string;
  status: TerminalStatus;
  output: unknown;
  error: string | null;
  logs: string;
  metrics: Record<string, unknown>;
}

const predictionSchema = z
  .object({
    id: z.string().min(1).max(256).optional(),
    status: z.enum(PREDICTION_STATUSES),
    input: z.record(z.string(), z.unknown()).nullish(),
    output: z.unknown().optional(),
    error: z.unknown().optional(),
    logs: z.string().nullish(),
    metrics: z.record(z.string(), z.unknown()).nullish(),
    created_at: z.string().nullish(),
    started_at: z.string().nullish(),
    completed_at: z.string().nullish(),
  })
  .loose();

/**
 * Validates a prediction from the wire. `fallbackId` fills in servers that omit the id
 * (Cog's sync answers); returns null when the value is not a prediction.
 */
export function parsePrediction(value: unknown, fallbackId?: string): Prediction | null {
  const parsed = predictionSchema.safeParse(value);
  if (!parsed.success) return null;
  const p = parsed.data;
  const id = p.id ?? fallbackId;
  if (!id) return null;
  const error =
    p.error == null ? null : typeof p.error === "string" ? p.error : JSON.stringify(p.error);
  const prediction: Prediction = { ...p, id, input: p.input ?? undefined, error };
  return prediction;
}

export function isTerminal(status: PredictionStatus): status is TerminalStatus {
  return status === "succeeded" || status === "failed" || status === "canceled";
}

/** Orders statuses so an older delivery can be recognised and ignored. */
export function statusRank(status: PredictionStatus): number {
  return status === "starting" ? 0 : status === "processing" ? 1 : 2;
}

export function finalize(p: Prediction & { status: TerminalStatus }): FinalPrediction {
  return {
    id: p.id,
    status: p.status,
    output: p.output ?? null,
    error: p.error ?? null,
    logs: p.logs ?? "",
    metrics: p.metrics ?? {},
  };
}

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/**
 * A fresh prediction id as Cog recommends: 16 random bytes, base32, lower case, no padding
 * (26 characters). Client-chosen ids are what make `PUT /predictions/{id}` idempotent.
 */
export function newPredictionId(): string {
  const bytes = randomBytes(16);
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Ids go into URL paths: keep them to a safe alphabet and length. */
export function isValidPredictionId(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,128}$/.test(id);
}

/** The last "NN%" in a model's logs, as a 0–1 fraction; models commonly print tqdm bars. */
export function progressFromLogs(logs: string | null | undefined): number | null {
  if (!logs) return null;
  const matches = logs.slice(-2000).match(/(\d{1,3})%/g);
  const last = matches?.at(-1);
  if (!last) return null;
  const pct = Number(last.slice(0, -1));
  return pct >= 0 && pct <= 100 ? pct / 100 : null;
}
