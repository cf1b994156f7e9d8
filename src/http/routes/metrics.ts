/**
 * GET /metrics: this node's metrics in the Prometheus text format, for a scraper holding
 * METRICS_TOKEN (or the operator's ADMIN_TOKEN). Tokens are compared as SHA-256 digests in
 * constant time, like the operator endpoints.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError, unauthorized } from "../../domain/errors.js";
import { errorResponses } from "../errors.js";
import { bearerMatches } from "../middleware/auth.js";
import type { Router } from "../router.js";

interface MetricsRouteDeps {
  /** Renders the exposition text (runs the scrape-time collectors). */
  render(): Promise<string>;
  contentType: string;
  /** Tokens that may scrape: METRICS_TOKEN and ADMIN_TOKEN, whichever are set. */
  tokens: readonly string[];
  /** METRICS=off: answer 404 saying how to switch metrics on. */
  enabled: boolean;
}

function checkAccess(deps: MetricsRouteDeps, authorization: string | undefined) {
  if (!deps.enabled) {
    throw new ApiError(
      "not_found",
      "Metrics are switched off on this server; set METRICS=on to serve them.",
    );
  }
  if (deps.tokens.length === 0) {
    throw new ApiError(
      "forbidden",
      "Metrics have no token configured; set METRICS_TOKEN (or ADMIN_TOKEN) and send it as Authorization: Bearer <token>.",
    );
  }
  if (!deps.tokens.some((t) => bearerMatches(authorization, t))) {
    throw unauthorized(
      "GET /metrics needs Authorization: Bearer <METRICS_TOKEN> (or the ADMIN_TOKEN).",
    );
  }
}

/** GET /metrics in the Prometheus text format, behind its token when one is set. */
export function registerMetricsRoute(app: Router, deps: MetricsRouteDeps) {
  const route = createRoute({
    method: "get",
    path: "/metrics",
    operationId: "getMetrics",
    tags: ["Operator"],
    summary: "Prometheus metrics",
    description:
      "This node's request, job, money and payment metrics in the Prometheus text format, plus cluster-wide job gauges read from the database. Send METRICS_TOKEN or ADMIN_TOKEN as a bearer token.",
    security: [{ metrics: [] }, { admin: [] }],
    responses: {
      200: {
        description: "The metrics (text exposition format 0.0.4).",
        content: { "text/plain": { schema: z.string() } },
      },
      ...errorResponses(401, 403, 404),
    },
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "metrics", {
    type: "http",
    scheme: "bearer",
    description: "The METRICS_TOKEN a Prometheus scraper sends.",
  });
  app.openapi(route, async (c) => {
    checkAccess(deps, c.req.header("authorization"));
    const text = await deps.render();
    return c.text(text, 200, { "content-type": deps.contentType, "cache-control": "no-store" });
  });
}
