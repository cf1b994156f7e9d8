/**
 * Tool schemas: the zod schemas the REST routes use, published as JSON Schema (draft-07, the
 * dialect MCP clients validate with). Output schemas accept additional properties, since REST
 * responses may gain additive fields.
 */
import { z } from "@hono/zod-openapi";

type Json = Record<string, unknown>;

function openUp(node: unknown): void {
  if (!node || typeof node !== "object") return;
  const obj = node as Json;
  if (obj.additionalProperties === false) delete obj.additionalProperties;
  for (const value of Object.values(obj)) {
    if (Array.isArray(value)) value.forEach(openUp);
    else openUp(value);
  }
}

/** JSON Schema of a tool's arguments (what a caller may send). */
export function inputJsonSchema(schema: z.ZodType): Json {
  const out = z.toJSONSchema(schema, { target: "draft-7", io: "input" }) as Json;
  delete out.$schema;
  return out;
}

/** JSON Schema of a tool's structuredContent (what it returns), open to additive fields. */
export function outputJsonSchema(schema: z.ZodType): Json {
  const out = z.toJSONSchema(schema, { target: "draft-7", io: "output" }) as Json;
  delete out.$schema;
  openUp(out);
  // MCP wants an object schema at the top; a union of objects still is one.
  if (out.type === undefined) out.type = "object";
  return out;
}

/** `job_id`: the id of a restore job (rj_…) or a clip (clip_…). */
export const JobId = z
  .string({ error: "is required: the job's id (rj_… or clip_…)" })
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters");

/** Optional on spending tools: the REST Idempotency-Key, for a retry after a time-out. */
export const IdempotencyKeyArg = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, "must be 1 to 255 printable ASCII characters without spaces")
  .optional()
  .describe(
    "Optional. Send the same value when retrying this call (e.g. after a time-out): it runs at most once, and the retry returns the first result instead of charging again.",
  );

/** `wait_seconds` on reads: answer as soon as the job changes, or after this long. */
export const WaitSeconds = z
  .number({ error: "must be a number of seconds from 0 to 25" })
  .int("must be a whole number of seconds from 0 to 25")
  .min(0, "must be a number of seconds from 0 to 25")
  .max(25, "must be at most 25 seconds")
  .optional()
  .describe(
    "Optional, 0–25: wait up to this many seconds for the job's status or progress to change before answering (poll less).",
  );
