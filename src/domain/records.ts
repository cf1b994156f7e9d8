/**
 * Type guards for parsed JSON whose shape we do not own (ffprobe's output, a remote model's
 * reply, a JSON Schema): a plain object is read as a record of unknowns, field by field, instead
 * of being cast to one.
 */

/** A JSON object, its fields not yet checked. */
export type JsonRecord = Record<string, unknown>;

/** Whether `value` is a plain object (not null, not an array). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` when it is a plain object, else an empty one (a missing or malformed section). */
export function recordOf(value: unknown): JsonRecord {
  return isRecord(value) ? value : {};
}

/** The plain objects of `value` when it is an array (other elements left out), else none. */
export function recordsOf(value: unknown): JsonRecord[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}
