/**
 * The one error type services throw. The HTTP layer turns it into the spec's error body
 * `{detail, needs_topup?, over_limit?, refused?}`; MCP turns it into a tool error.
 */
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
  constructor(
    readonly status: ErrorStatus,
    readonly detail: string,
    readonly extra: ApiErrorExtra = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = "ApiError";
  }

  body(): Record<string, unknown> {
    return { detail: this.detail, ...this.extra };
  }
}

export const badRequest = (detail: string) => new ApiError(400, detail);
export const unauthorized = (detail: string) => new ApiError(401, detail);
export const notFound = (what: string) => new ApiError(404, `${what} not found.`);
export const conflict = (detail: string) => new ApiError(409, detail);
export const needsTopup = (detail: string) => new ApiError(402, detail, { needs_topup: true });
export const overLimit = (detail: string) => new ApiError(402, detail, { over_limit: true });
