import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { invalidField } from "../../../domain/errors.js";
import type { JobKind } from "../../../jobs/work.js";
import type { DbWorkSource } from "../../../jobs/work-source.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";
import { Kind, WorkerId, WorkItemSchema, workerSecurity } from "./schemas.js";

/** Longest a claim may wait for work: below common proxy idle time-outs (30 s). */
const MAX_CLAIM_WAIT_MS = 25_000;

/** The claim body; its example names the kinds this server runs. */
const claimBody = (kinds: readonly string[]) =>
  z
    .object({
      kinds: z.array(Kind).min(1).max(16),
      worker_id: WorkerId,
      wait_ms: z.number().int().min(0).max(MAX_CLAIM_WAIT_MS).optional(),
    })
    .strict()
    .openapi({ example: { kinds: [...kinds], worker_id: "gpu-1-w0", wait_ms: 20000 } });

export function registerClaim(
  app: Router,
  auth: MiddlewareHandler,
  source: () => Promise<DbWorkSource>,
  kinds: readonly string[],
) {
  const Body = claimBody(kinds);
  const route = createRoute({
    method: "post",
    path: "/worker/claim",
    operationId: "workerClaim",
    tags: ["Worker API"],
    summary: "Claim a job (long-poll)",
    description: `Waits up to wait_ms (at most ${MAX_CLAIM_WAIT_MS}) for a job of one of the kinds; \`item\` is null when none came.`,
    security: workerSecurity,
    middleware: [auth] as const,
    request: { body: { required: true, content: { "application/json": { schema: Body } } } },
    responses: {
      200: {
        description: "A leased work item, or null.",
        content: { "application/json": { schema: z.object({ item: WorkItemSchema.nullable() }) } },
      },
      ...errorResponses(400, 401, 503),
    },
  });
  app.openapi(route, async (c) => {
    const b = c.req.valid("json");
    const s = await source();
    // A worker may run more engines than this server has job kinds: claim the ones it has.
    const kinds = b.kinds.filter((k) => s.kinds.includes(k));
    if (kinds.length === 0) {
      throw invalidField(
        "kinds",
        `this server runs no ${b.kinds.join(", ")} jobs; it runs ${s.kinds.join(", ")}.`,
      );
    }
    // cast: every name was checked against the server's kinds just above
    const item = await s.claim(kinds as JobKind[], b.worker_id, b.wait_ms ?? 0);
    return c.json({ item }, 200);
  });
}
