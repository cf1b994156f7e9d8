/**
 * NUL characters cannot be stored in PostgreSQL text ("invalid byte sequence"), so they are
 * refused at the edge, before any handler or query runs: a NUL in the path is a 404 (no id
 * can contain one), in the query string a 400 naming where it is. Operations refuse NULs in
 * their input themselves (api/input.ts); the few JSON routes that are not operations (OAuth
 * client registration, the worker API) take `refuseNulInJsonBody`.
 */
import { createMiddleware } from "hono/factory";
import { nulInField } from "../../api/validation.js";
import { ApiError, invalidRequest } from "../../domain/errors.js";
import { findNul } from "../../domain/text.js";
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

/** Refuses a NUL character anywhere in a JSON body. */
export const refuseNulInJsonBody = createMiddleware<AppEnv>(async (c, next) => {
  const text = await c.req.text();
  if (JSON_NUL.test(text)) {
    let field: string | null = null;
    try {
      field = findNul(JSON.parse(text));
    } catch {
      // Not JSON: the route's own parser says so.
    }
    if (field) throw nulInField(field);
  }
  await next();
});
