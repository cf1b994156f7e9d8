/**
 * Turning every failure into the spec's error body. Zod failures name the field; malformed
 * JSON, oversized bodies, unknown routes and wrong methods all get a `detail` that says what
 * to fix; unknown errors become a 500 with a request id and nothing internal.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ErrorBody } from "../api/schemas.js";
import type { ErrorCode } from "../domain/error-codes.js";
import { ApiError } from "../domain/errors.js";
import type { Logger } from "../logger.js";
import type { AppEnv } from "./env.js";

type Status = 400 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 503;

const DESCRIPTIONS: Record<Status, string> = {
  400: "Bad input; `detail` says what to fix.",
  401: "Missing, unknown or revoked key.",
  402: "The balance (`needs_topup`) or the agent key's limit (`over_limit`) does not cover the price.",
  403: "The wallet is paused by the operator, or this key may not do this.",
  404: "Not found (or not visible to this key).",
  409: "Conflict with the current state, or an Idempotency-Key reused with another body.",
  410: "Gone: the file or link has expired.",
  413: "The body is too large.",
  422: "Over a limit, or refused by the content rule (`refused`).",
  429: "Too many requests.",
  503: "Not switched on, or temporarily unavailable.",
};

/** OpenAPI response entries for the given error statuses. */
export function errorResponses(...statuses: Status[]) {
  const out: Record<
    number,
    { description: string; content: { "application/json": { schema: typeof ErrorBody } } }
  > = {};
  for (const s of statuses) {
    out[s] = {
      description: DESCRIPTIONS[s],
      content: { "application/json": { schema: ErrorBody } },
    };
  }
  return out;
}

/**
 * The generic code of an HTTP status, ONLY for answers kinora did not build from a code: a
 * framework exception (Hono's HTTPException carries a status and nothing more) or a JSON error
 * body some library wrote without one. Everything kinora refuses names its code; this keeps
 * the error body's `code` present (and in the closed table) for the rest.
 */
export const codeForStatus = (status: number): ErrorCode =>
  GENERIC_CODE[status] ?? (status >= 500 ? "internal" : "invalid_request");

const GENERIC_CODE: Partial<Record<number, ErrorCode>> = {
  400: "invalid_request",
  401: "unauthorized",
  402: "payment_required",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  410: "gone",
  413: "too_large",
  416: "range_not_satisfiable",
  422: "over_a_limit",
  429: "rate_limited",
  502: "upstream_failed",
  503: "unavailable",
};

/** Hono's own refusals, as kinora words them: the two it meets are named explicitly. */
function frameworkRefusal(err: HTTPException): { code: ErrorCode; detail: string } {
  if (err.status === 413) {
    return {
      code: "too_large",
      detail: "The request body is too large; JSON bodies are limited to 64 KB.",
    };
  }
  // Hono's JSON validator refuses a body it cannot parse with a bare 400.
  if (err.status === 400) {
    const detail = /malformed json/i.test(err.message)
      ? "The request body is not valid JSON; send a JSON object with Content-Type: application/json."
      : err.message || "The request could not be processed.";
    return { code: "invalid_request", detail };
  }
  return {
    code: codeForStatus(err.status),
    detail: err.message || "The request could not be processed.",
  };
}

/** An ApiError as the HTTP answer: its code's status, its body, the headers it carries. */
export function errorJson(c: Context<AppEnv>, err: ApiError) {
  for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
  // cast: an ApiError's status is its code's in the error table, a framework refusal's a 4xx: all with a body
  return c.json(err.body(), err.status as ContentfulStatusCode);
}

/** The app's onError: an ApiError as itself, a framework refusal coded, anything else a 500. */
export function handleError(log: Logger) {
  return (err: Error, c: Context<AppEnv>) => {
    if (err instanceof ApiError) return errorJson(c, err);
    if (err instanceof HTTPException) {
      // cast: an ApiError's status is its code's in the error table, a framework refusal's a 4xx: all with a body
      return c.json(frameworkRefusal(err), err.status as ContentfulStatusCode);
    }
    const requestId = c.get("requestId");
    log.error("unhandled error", { request_id: requestId, err });
    return c.json(
      {
        detail: `Internal error; retry, or quote request id ${requestId} to the operator.`,
        code: "internal" satisfies ErrorCode,
        request_id: requestId,
      },
      500,
    );
  };
}
