/** Heartbeat, complete and fail: the worker's reports on a job it holds the lease of. */
import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { WorkItem, WorkSource } from "../../../workers/types.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";
import { IdParam } from "../../schemas.js";
import {
  Kind,
  Ok,
  WorkerId,
  WorkFailureSchema,
  WorkResultSchema,
  workerSecurity,
} from "./schemas.js";

type Source = () => Promise<WorkSource>;
const params = IdParam("id", "rj_5pX0c1Hq3GvJ2Yb8Lw9RzA");

/** The sources only read kind and jobId from the item. */
const itemRef = (kind: WorkItem["kind"], jobId: string) => ({ kind, jobId }) as WorkItem;

function reportRoute(path: string, summary: string, body: z.ZodType, auth: MiddlewareHandler) {
  return createRoute({
    method: "post",
    path,
    tags: ["Worker API"],
    summary,
    security: workerSecurity,
    middleware: [auth] as const,
    request: {
      params,
      body: { required: true, content: { "application/json": { schema: body } } },
    },
    responses: {
      200: { description: "Accepted.", content: { "application/json": { schema: Ok } } },
      ...errorResponses(400, 401, 503),
    },
  });
}

const HeartbeatBody = z
  .object({ kind: Kind, worker_id: WorkerId, progress: z.number().min(0).max(1).nullable() })
  .strict();
const CompleteBody = z
  .object({ kind: Kind, worker_id: WorkerId, result: WorkResultSchema })
  .strict();
const FailBody = z.object({ kind: Kind, worker_id: WorkerId, failure: WorkFailureSchema }).strict();

export function registerReports(app: Router, auth: MiddlewareHandler, source: Source) {
  app.openapi(
    reportRoute(
      "/worker/jobs/{id}/heartbeat",
      "Extend the lease, report progress",
      HeartbeatBody,
      auth,
    ),
    async (c) => {
      const b = c.req.valid("json") as z.infer<typeof HeartbeatBody>;
      const ok = await (await source()).heartbeat(
        itemRef(b.kind, c.req.valid("param").id),
        b.worker_id,
        b.progress,
      );
      return c.json({ ok }, 200);
    },
  );
  app.openapi(
    reportRoute("/worker/jobs/{id}/complete", "Report the job done", CompleteBody, auth),
    async (c) => {
      const b = c.req.valid("json") as z.infer<typeof CompleteBody>;
      await (await source()).complete(
        itemRef(b.kind, c.req.valid("param").id),
        b.worker_id,
        b.result,
      );
      return c.json({ ok: true }, 200);
    },
  );
  app.openapi(
    reportRoute("/worker/jobs/{id}/fail", "Report the attempt failed", FailBody, auth),
    async (c) => {
      const b = c.req.valid("json") as z.infer<typeof FailBody>;
      await (await source()).fail(itemRef(b.kind, c.req.valid("param").id), b.worker_id, b.failure);
      return c.json({ ok: true }, 200);
    },
  );
}
