/**
 * Turning every failure into the spec's error body. Zod failures name the field; malformed
 * JSON, oversized bodies, unknown routes and wrong methods all get a `detail` that says what
 * to fix; unknown errors become a 500 with a request id and nothing internal.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ErrorBody } from "../api/schemas.js";
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

export function errorJson(c: Context<AppEnv>, err: ApiError) {
  for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
  return c.json(err.body(), err.status as ContentfulStatusCode);
}

export function handleError(log: Logger) {
  return (err: Error, c: Context<AppEnv>) => {
    if (err instanceof ApiError) return errorJson(c, err);
    if (err instanceof HTTPException) {
      const status = err.status;
      let detail = err.message || "The request could not be processed.";
      if (/malformed json/i.test(detail)) {
        detail =
          "The request body is not valid JSON; send a JSON object with Content-Type: application/json.";
      }
      if (status === 413)
        detail = "The request body is too large; JSON bodies are limited to 64 KB.";
      return c.json({ detail }, status as ContentfulStatusCode);
    }
    const requestId = c.get("requestId");
    log.error("unhandled error", { request_id: requestId, err });
    return c.json(
      {
        detail: `Internal error; retry, or quote request id ${requestId} to the operator.`,
        request_id: requestId,
      },
      500,
    );
  };
}
