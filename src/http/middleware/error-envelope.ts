/**
 * Every error response, whoever wrote it (a route, the zod hook, the 404/405 fallbacks, the
 * local store's file routes, the body-size limit), leaves with the same envelope: the spec's
 * `detail` plus a machine-readable `code` from the closed table and the `request_id`.
 */
import { createMiddleware } from "hono/factory";
import { isErrorCode } from "../../domain/error-codes.js";
import type { AppEnv } from "../env.js";
import { codeForStatus } from "../errors.js";

/** Gives every error answer the API's error body, whoever produced it. */
export const errorEnvelope = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const res = c.res;
  if (res.status < 400 || !res.headers.get("content-type")?.includes("application/json")) return;
  let body: unknown;
  try {
    body = await res.clone().json();
  } catch {
    return;
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) return;
  // cast: checked to be a plain object just above; its fields are checked one by one
  const error = body as Record<string, unknown>;
  if (typeof error.detail !== "string") return;
  if (isErrorCode(error.code) && typeof error.request_id === "string") return;
  const finished = {
    ...error,
    // Every body kinora builds names its code; only one it did not build needs the fallback.
    code: isErrorCode(error.code) ? error.code : codeForStatus(res.status),
    request_id: typeof error.request_id === "string" ? error.request_id : c.get("requestId"),
  };
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  c.res = new Response(JSON.stringify(finished), { status: res.status, headers });
});
