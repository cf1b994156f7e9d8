/** Liveness/readiness, the OpenAPI document and the interactive reference. */
import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "kysely";
import { ApiError } from "../../domain/errors.js";
import type { CoreDeps } from "../../services/deps.js";
import { errorResponses } from "../errors.js";
import { registerOpenApiDocument } from "../openapi-doc.js";
import type { Router } from "../router.js";
import { registerDocs } from "./docs.js";

/** Health, readiness and version routes. */
export function registerSystemRoutes(app: Router, deps: CoreDeps, isReady: () => boolean) {
  const health = createRoute({
    method: "get",
    path: "/healthz",
    operationId: "getHealth",
    tags: ["System"],
    summary: "Health",
    description:
      "200 once the service is ready (database reachable, migrations applied); 503 while starting or stopping.",
    responses: {
      200: {
        description: "Ready.",
        content: { "application/json": { schema: z.object({ status: z.literal("ok") }) } },
      },
      ...errorResponses(503),
    },
  });
  app.openapi(health, async (c) => {
    if (!isReady())
      throw new ApiError("unavailable", "The service is starting or shutting down; retry shortly.");
    await sql`SELECT 1`.execute(deps.db);
    return c.json({ status: "ok" as const }, 200);
  });

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A wallet key (pmk_…) or an agent key (pak_…).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "admin", {
    type: "http",
    scheme: "bearer",
    description: "The operator's ADMIN_TOKEN.",
  });
  registerOpenApiDocument(app, {
    openapi: "3.1.0",
    info: {
      title: "kinora",
      version: "1.0.0",
      description:
        "Cloud video restoration and image-to-clip generation, paid from a prepaid wallet. Money is integer US cents. Every error is the `Error` schema: `{detail, code, request_id}` plus, for some codes, `needs_topup`, `over_limit`, `refused`, `price_cents` and `question`; `detail` says what to fix, naming the field, and `code` is one of a closed table (the README's Errors section). Each operation's error responses show an example of every code it can answer.",
    },
    tags: [
      { name: "Balance", description: "The prepaid wallet." },
      { name: "Agent keys", description: "Spending-limited sub-keys for assistants and scripts." },
      { name: "Operator", description: "ADMIN_TOKEN endpoints for the person running kinora." },
      { name: "System", description: "Health and documents." },
    ],
  });
  registerDocs(app);
}
