/**
 * The one error type services throw, built from its code: the status comes from the code's row
 * in the closed table (error-codes.ts), never from the thrower. The HTTP layer turns it into the
 * spec's error body `{detail, code, needs_topup?, over_limit?, refused?}`; MCP turns the same
 * body into a tool error; the `kinora` client exits by the same row.
 */
import { type ErrorCode, type ErrorStatus, statusOf } from "./error-codes.js";

export type { ErrorCode, ErrorStatus } from "./error-codes.js";

interface ApiErrorExtra {
  needs_topup?: boolean;
  over_limit?: boolean;
  refused?: string;
  /** Extra body fields some errors carry (e.g. x402 `payment_required`). */
  [field: string]: unknown;
}

interface ApiErrorOptions {
  /** Response headers the error carries: Retry-After, PAYMENT-REQUIRED, WWW-Authenticate. */
  headers?: Record<string, string>;
}

/**
 * A refusal with a code from the table: its status, wording and extra fields for the error body.
 */
export class ApiError extends Error {
  /** Always the code's row's: no thrower picks a status. */
  readonly status: ErrorStatus;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: ApiErrorExtra = {},
    options: ApiErrorOptions = {},
  ) {
    super(detail);
    this.name = "ApiError";
    this.status = statusOf(code);
    this.headers = options.headers ?? {};
  }

  body(): Record<string, unknown> {
    return { detail: this.detail, code: this.code, ...this.extra };
  }
}

/** A field is wrong: the detail is "<field>: <problem>", e.g. "limit_cents: must be …". */
export const invalidField = (field: string, problem: string) =>
  new ApiError("invalid_field", `${field}: ${problem}`);
/** The request as a whole is malformed (body type, headers, query), not one field of it. */
export const invalidRequest = (detail: string) => new ApiError("invalid_request", detail);
/** Missing or unknown credentials; a revoked key is `key_revoked`. */
export const unauthorized = (detail: string) => new ApiError("unauthorized", detail);
/** Nothing by that id, or not visible to this key: "<what> not found." */
export const notFound = (what: string) => new ApiError("not_found", `${what} not found.`);
/** A state conflict no more specific 409 code names. */
export const conflict = (detail: string) => new ApiError("conflict", detail);
/** The job, clip or checkout is in a state that does not allow this. */
export const wrongState = (detail: string) => new ApiError("wrong_state", detail);
/** The balance does not cover the price (the spec's `needs_topup: true`). */
export const needsTopup = (detail: string) =>
  new ApiError("needs_topup", detail, { needs_topup: true });
/** The agent key's limit does not cover the price (the spec's `over_limit: true`). */
export const overLimit = (detail: string) =>
  new ApiError("over_limit", detail, { over_limit: true });
/** A field is over a service limit (422, kept apart from malformed input's 400). */
export const overALimit = (field: string, problem: string) =>
  new ApiError("over_a_limit", `${field}: ${problem}`);
/** The content rule refused it; `rule` is the rule's own code (the spec's `refused`). */
export const refusedByRule = (rule: string, detail: string) =>
  new ApiError("refused", detail, { refused: rule });
