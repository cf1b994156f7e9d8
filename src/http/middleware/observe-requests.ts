/**
 * Reports every answered request to the event seam with its route PATTERN (`/cloud/jobs/:id`),
 * never the raw path: ids in labels would make one time series per job. Installed first, so
 * it also sees 429s, 413s and errors turned into responses by the error handler.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import type { KinoraEvents } from "../../domain/events.js";
import type { AppEnv } from "../env.js";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The pattern of the route that matched, or "unmatched" (404s). Middleware registered for
 * every path ("*") is skipped, so a request refused by a middleware (429) is still labelled
 * with the route it was aimed at.
 */
function routeLabel(c: Context<AppEnv>): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const path = routes[i]?.path;
    if (path && path !== "*" && path !== "/*") return path;
  }
  return "unmatched";
}

/** Reports each answered request (route pattern, status, time) to the event hub. */
export function observeRequests(events: Pick<KinoraEvents, "httpRequest">) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      events.httpRequest({
        route: routeLabel(c),
        method: METHODS.has(c.req.method) ? c.req.method : "OTHER",
        status: c.res.status,
        durationMs: performance.now() - started,
      });
    }
  });
}
