/**
 * NUL characters cannot be stored in PostgreSQL text ("invalid byte sequence"), so they are
 * refused at the edge, before any handler or query runs: a NUL in the path is a 404 (no id
 * can contain one), in the query string a 400 naming where it is. Operations refuse NULs and
 * nesting deeper than 64 levels in their input themselves (api/input.ts); the few JSON routes
 * that are not operations (OAuth client registration, the worker API) take
 * `refuseNulOrDeepJsonBody`.
 */
import { createMiddleware } from "hono/factory";
import { nestedTooDeep, nulInField } from "../../api/validation.js";
import { ApiError, invalidRequest } from "../../domain/errors.js";
import { inputFault } from "../../domain/input-shape.js";
import type { AppEnv } from "../env.js";

const ENCODED_NUL = /%(?:25)*00/i;
/** The JSON escape for U+0000 (raw NUL bytes are not valid JSON at all). */
const JSON_NUL = /\\u0000/i;

/** Refuses a NUL character in the path or query (400 before any handler). */
export const refuseNulInUrl = createMiddleware<AppEnv>(async (c, next) => {
  const url = new URL(c.req.url);
  if (ENCODED_NUL.test(url.pathname) || url.pathname.includes("\0")) {
    throw new ApiError("not_found", "Not found: a path can never contain a NUL character.");
  }
  if (ENCODED_NUL.test(url.search) || url.search.includes("\0")) {
    throw invalidRequest("The query string contains a NUL character (%00); remove it.");
  }
  await next();
});

/**
 * Refuses a JSON body with a NUL character anywhere in it, or nested more than 64 levels deep
 * (its handler, a schema, the database's jsonb or a log line could overflow on it: 500).
 */
export const refuseNulOrDeepJsonBody = createMiddleware<AppEnv>(async (c, next) => {
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: the route's own parser says so.
  }
  const fault = inputFault(value);
  if (fault?.kind === "depth") throw nestedTooDeep("request body", fault.maxDepth);
  if (fault?.kind === "nul" && JSON_NUL.test(text)) throw nulInField(fault.field);
  await next();
});
