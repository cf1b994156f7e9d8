/**
 * Unknown routes and wrong methods answer with the spec's error body. A path that exists
 * under other methods gets 405 with an Allow header rather than a misleading 404.
 */
import type { Context } from "hono";
import { ApiError } from "../domain/errors.js";
import type { AppEnv } from "./env.js";
import { errorJson } from "./errors.js";
import type { Router } from "./router.js";

function patternOf(path: string): RegExp {
  const escaped = path
    .split("/")
    .map((part) =>
      part.startsWith(":")
        ? "[^/]+"
        : part === "*"
          ? ".*"
          : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/");
  return new RegExp(`^${escaped}/?$`);
}

/** 404 and 405 answers in the API's error body, for paths no route takes. */
export function installFallbacks(app: Router) {
  app.notFound((c: Context<AppEnv>) => {
    const path = c.req.path;
    const allowed = new Set<string>();
    for (const route of app.routes) {
      if (route.method === "ALL" || route.path.endsWith("*")) continue;
      if (patternOf(route.path).test(path)) allowed.add(route.method);
    }
    if (allowed.size > 0 && !allowed.has(c.req.method)) {
      if (allowed.has("GET")) allowed.add("HEAD");
      const list = [...allowed].sort().join(", ");
      const detail = `${c.req.method} is not allowed on ${path}; use ${list}.`;
      const headers = { Allow: list };
      return errorJson(c, new ApiError("method_not_allowed", detail, {}, { headers }));
    }
    const detail = `No endpoint ${c.req.method} ${path}; see /openapi.json or /docs for the API.`;
    return errorJson(c, new ApiError("not_found", detail));
  });
}
