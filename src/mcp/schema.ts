/**
 * Tool schemas, derived from the operation contracts (api/tool-schema.ts): the input, plus
 * `idempotency_key` on a tool that spends, and the output.
 */
import { z } from "@hono/zod-openapi";
import type { AnyContract } from "../api/operation.js";
import { inputJsonSchema, outputJsonSchema } from "../api/tool-schema.js";

/** Optional on spending tools: the REST Idempotency-Key, for a retry after a time-out. */
const IdempotencyKeyArg = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, "must be 1 to 255 printable ASCII characters without spaces")
  .optional()
  .describe("A retry with the same value runs the call once.");

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
export const toolInputJsonSchema = (contract: AnyContract) => inputJsonSchema(toolInput(contract));

export { outputJsonSchema };
