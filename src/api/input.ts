/**
 * Reading an operation's input, the same on every surface: NUL characters refused (PostgreSQL
 * text cannot hold them) before the schema runs, then the schema, with a detail that names the
 * field. Only the name of the place differs ("request body", "query string", "arguments").
 */
import type { z } from "@hono/zod-openapi";
import { findNul } from "../domain/text.js";
import { invalidInput, nulInField } from "./validation.js";

/** Parses `raw` with `schema`, or throws the 400 that names the first bad field. */
export function readInput<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  where: string,
): z.output<S> {
  const nul = findNul(raw);
  if (nul) throw nulInField(nul);
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw invalidInput(parsed.error, where);
  return parsed.data;
}
