/** Wire shapes of the HTTP worker API (what HttpWorkSource sends and reads). */
import { z } from "@hono/zod-openapi";

/** A job kind's name as its definition declares it (the server says which it runs). */
export const Kind = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]{0,31}$/,
    "must be a job kind: a lowercase letter, then up to 31 lowercase letters, digits or _",
  );
export const WorkerId = z.string().min(1).max(128);

export const WorkItemSchema = z
  .object({
    kind: Kind,
    jobId: z.string(),
    attempt: z.number().int(),
    leaseExpiresAt: z.string(),
    leaseMs: z
      .number()
      .int()
      .openapi({ description: "The server's lease: heartbeat well within it." }),
    inputUrl: z.string(),
    outputUrl: z.string(),
    outputHeaders: z.record(z.string(), z.string()),
    params: z.record(z.string(), z.unknown()),
  })
  .openapi("WorkItem");

export const WorkFailureSchema = z.object({
  message: z.string().min(1).max(1000),
  kind: z.enum(["retry", "final", "refused", "too_long"]),
  code: z.string().max(100).optional(),
});

export const WorkResultSchema = z.object({
  outputBytes: z.number().int().min(0),
  meta: z.record(z.string(), z.unknown()),
});

/** What a running attempt tells the server (the kind's definition reads it, `noted`). */
export const WorkNoteSchema = z.record(z.string(), z.unknown()).openapi({
  example: { measuredDurationSec: 10.04, inputBytes: 812345, contentType: "video/mp4" },
});

export const Ok = z.object({ ok: z.boolean() });
export const workerSecurity = [{ workerToken: [] }];
