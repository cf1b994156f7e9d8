/** How every surface words a validation failure: the field, then what to fix. */
import type { ZodError } from "zod";
import { ApiError, invalidField, invalidRequest } from "../domain/errors.js";

/** How the caller's surface names an input field (REST's `wait` is MCP's `wait_seconds`). */
export type FieldName = (field: string) => string;

/** One sentence naming the first failing field, e.g. "limit_cents: must be at most 100000." */
function describeZodError(error: ZodError, where: string, name: FieldName = String): string {
  const issue = error.issues[0];
  if (!issue) return `The ${where} is not valid.`;
  const [first, ...rest] = issue.path.map(String);
  const field = first === undefined ? "" : [name(first), ...rest].join(".");
  let message = issue.message;
  if (issue.code === "invalid_type" && /received undefined/.test(message)) message = "is required";
  else if (issue.code === "unrecognized_keys") {
    return `Unknown field(s) in the ${where}: ${issue.keys.join(", ")}; remove them.`;
  }
  const text = field ? `${field}: ${message}` : `The ${where}: ${message}`;
  return text.endsWith(".") ? text : `${text}.`;
}

/** A failed zod parse as every surface refuses it: `invalid_field`, worded as above. */
export function invalidInput(error: ZodError, where: string, name?: FieldName): ApiError {
  return new ApiError("invalid_field", describeZodError(error, where, name));
}

/** A bidirectional control in a field (domain/bidi.ts): `invalid_field` naming it and the character. */
export function bidiInField(field: string, char: string): ApiError {
  return invalidField(
    field,
    `must not contain bidirectional control characters (${char}): they reorder how text is shown; remove them.`,
  );
}

/** A NUL character in a field (PostgreSQL text cannot hold one): `invalid_field` naming it. */
export function nulInField(field: string): ApiError {
  return invalidField(field, "must not contain NUL characters (\\u0000); remove them.");
}

/** Input nested deeper than the limit: `invalid_request` saying how deep it may go. */
export function nestedTooDeep(where: string, maxDepth: number): ApiError {
  return invalidRequest(
    `Objects and arrays in the ${where} are nested more than ${maxDepth} levels deep; send flatter JSON.`,
  );
}
