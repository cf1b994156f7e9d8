/** How every surface words a validation failure: the field, then what to fix. */
import type { ZodError } from "zod";

/** One sentence naming the first failing field, e.g. "limit_cents: must be at most 100000." */
export function describeZodError(error: ZodError, where: string): string {
  const issue = error.issues[0];
  if (!issue) return `The ${where} is not valid.`;
  const field = issue.path.map(String).join(".");
  let message = issue.message;
  if (issue.code === "invalid_type" && /received undefined/.test(message)) message = "is required";
  else if (issue.code === "unrecognized_keys") {
    return `Unknown field(s) in the ${where}: ${issue.keys.join(", ")}; remove them.`;
  }
  const text = field ? `${field}: ${message}` : `The ${where}: ${message}`;
  return text.endsWith(".") ? text : `${text}.`;
}
