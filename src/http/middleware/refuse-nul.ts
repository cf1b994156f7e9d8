/**
 * NUL characters cannot be stored in PostgreSQL text ("invalid byte sequence"), so they are
 * refused at the edge, before any handler or query runs: a NUL in the path is a 404 (no id
 * can contain one), in the query string or a JSON body field a 400 naming where it is.
 */
import { createMiddleware } from "hono/factory";
import { nulInField } from "../../api/validation.js";
import { ApiError, invalidRequest } from "../../domain/errors.js";
import { findNul } from "../../domain/text.js";
import type { AppEnv } from "../env.js";

const ENCODED_NUL = /%(?:25)*00/i;
/** The JSON escape for U+0000 (raw NUL bytes are not valid JSON at all). */
const JSON_NUL = /\\u0000/i;

export function refuseNul(opts: { isRaw: (path: string) => boolean }) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const url = new URL(c.req.url);
    if (ENCODED_NUL.test(url.pathname) || url.pathname.includes("\0")) {
      throw new ApiError("not_found", "Not found: a path can never contain a NUL character.");
    }
    if (ENCODED_NUL.test(url.search) || url.search.includes("\0")) {
      throw invalidRequest("The query string contains a NUL character (%00); remove it.");
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD" && !opts.isRaw(url.pathname)) {
      const text = await c.req.text();
      if (JSON_NUL.test(text)) {
        let field: string | null = null;
        try {
          field = findNul(JSON.parse(text));
        } catch {
          // Not JSON: the JSON parser's own 400 says so further on.
        }
        if (field) {
          throw nulInField(field);
        }
      }
    }
    await next();
  });
}
