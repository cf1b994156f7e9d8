/**
 * The one error type services throw. The HTTP layer turns it into the spec's error body
 * `{detail, needs_topup?, over_limit?, refused?}` plus a `code` from the closed table in
 * error-codes.ts; MCP turns the same body into a tool error.
 */
import { codeForStatus, type ErrorCode } from "./error-codes.js";

export interface ApiErrorExtra {
  needs_topup?: boolean;
  over_limit?: boolean;
  refused?: string;
  /** Extra body fields some errors carry (e.g. x402 `payment_required`). */
  [field: string]: unknown;
}

export type ErrorStatus =
  | 400
  | 401
  | 402
  | 403
  | 404
  | 405
  | 409
  | 410
  | 413
  | 422
  | 429
  | 500
  | 502
  | 503;

export class ApiError extends Error {
  readonly code: ErrorCode;

  constructor(
    readonly status: ErrorStatus,
    readonly detail: string,
    readonly extra: ApiErrorExtra = {},
    readonly headers: Record<string, string> = {},
    code?: ErrorCode,
  ) {
    super(detail);
    this.name = "ApiError";
    this.code = code ?? codeForStatus(status, extra);
  }

  body(): Record<string, unknown> {
    return { detail: this.detail, code: this.code, ...this.extra };
  }
}

/** A field is wrong: the detail names it ("limit_cents: must be …"). */
export const badRequest = (detail: string) =>
  new ApiError(
    400,
    detail,
    {},
    {},
    /^[a-z_][\w.]*: /.test(detail) ? "invalid_field" : "invalid_request",
  );
export const unauthorized = (detail: string) => new ApiError(401, detail);
export const notFound = (what: string) => new ApiError(404, `${what} not found.`);
export const conflict = (detail: string) => new ApiError(409, detail);
export const needsTopup = (detail: string) => new ApiError(402, detail, { needs_topup: true });
export const overLimit = (detail: string) => new ApiError(402, detail, { over_limit: true });
