/**
 * Reading an operation's input, the same on every surface: nesting deeper than 64 levels, NUL
 * characters (PostgreSQL text cannot hold them) and bidirectional controls (domain/bidi.ts)
 * refused before the schema runs, then the schema, with a detail that names the field. Only the
 * name of the place differs ("request body", "query string", "arguments").
 */
import type { z } from "@hono/zod-openapi";
import { findBidiControl } from "../domain/bidi.js";
import { inputFault } from "../domain/input-shape.js";
import {
  bidiInField,
  type FieldName,
  invalidInput,
  nestedTooDeep,
  nulInField,
} from "./validation.js";

/**
 * Parses `raw` with `schema`, or throws the 400 that names the first bad field — by the name
 * the caller used (`name` maps an input field to the surface's name for it).
 */
export function readInput<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  where: string,
  name?: FieldName,
): z.output<S> {
  const fault = inputFault(raw);
  if (fault?.kind === "depth") throw nestedTooDeep(where, fault.maxDepth);
  if (fault?.kind === "nul") {
    const [first, ...rest] = fault.field.split(".");
    throw nulInField([name && first ? name(first) : first, ...rest].join("."));
  }
  // Bidi controls are refused in every field, whatever it is (domain/bidi.ts says why).
  const bidi = findBidiControl(raw);
  if (bidi) {
    const [first, ...rest] = bidi.at.split(".");
    throw bidiInField([name && first ? name(first) : first, ...rest].join("."), bidi.char);
  }
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw invalidInput(parsed.error, where, name);
  return parsed.data;
}
