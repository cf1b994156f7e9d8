/**
 * Tool schemas, derived from the operation contracts: the input (plus `idempotency_key` on a
 * tool that spends) and the output, published as JSON Schema (draft-07, the dialect MCP
 * clients validate with). Output schemas accept additional properties, since answers may gain
 * additive fields.
 */
import { z } from "@hono/zod-openapi";
import type { AnyContract } from "../api/operation.js";

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

/** Optional on spending tools: the REST Idempotency-Key, for a retry after a time-out. */
const IdempotencyKeyArg = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, "must be 1 to 255 printable ASCII characters without spaces")
  .optional()
  .describe(
    "Optional. Send the same value when retrying this call (e.g. after a time-out): it runs at most once, and the retry returns the first result instead of charging again.",
  );

const inputs = new WeakMap<AnyContract, z.ZodObject>();

/** The arguments a tool takes: the operation's input, and an idempotency key where it spends. */
export function toolInput(contract: AnyContract): z.ZodObject {
  const known = inputs.get(contract);
  if (known) return known;
  const schema: z.ZodObject = contract.policies?.spends
    ? contract.input.extend({ idempotency_key: IdempotencyKeyArg })
    : contract.input;
  inputs.set(contract, schema);
  return schema;
}

/** JSON Schema of a tool's arguments (what a caller may send). */
export function inputJsonSchema(contract: AnyContract): Json {
  const out = z.toJSONSchema(toolInput(contract), { target: "draft-7", io: "input" }) as Json;
  delete out.$schema;
  return out;
}

/** JSON Schema of a tool's structuredContent (what it returns), open to additive fields. */
export function outputJsonSchema(contract: AnyContract): Json {
  const accepted = contract.rest?.accepted?.schema;
  const schema = accepted ? z.union([contract.output, accepted]) : contract.output;
  const out = z.toJSONSchema(schema, { target: "draft-7", io: "output" }) as Json;
  delete out.$schema;
  openUp(out);
  // MCP wants an object schema at the top; a union of objects still is one.
  if (out.type === undefined) out.type = "object";
  return out;
}
