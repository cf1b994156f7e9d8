/**
 * Heartbeat, note, complete, fail and release: the worker's reports on a job it holds the lease of.
 * An unknown (or malformed) job id is a 404; a report from a worker that no longer holds the
 * lease is `{ok: false}` (the worker abandons the attempt; another one owns the job now).
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { IdParam } from "../../../api/schemas.js";
import { ApiError, invalidField } from "../../../domain/errors.js";
import type { JobQueue, ReportOutcome } from "../../../jobs/work.js";
import type { DbWorkSource } from "../../../jobs/work-source.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";
import {
  Kind,
  Ok,
  WorkerId,
  WorkFailureSchema,
  WorkNoteSchema,
  WorkResultSchema,
  workerSecurity,
} from "./schemas.js";

type Source = () => Promise<DbWorkSource>;

const params = IdParam("id", "rj_5pX0c1Hq3GvJ2Yb8Lw9RzA");

function reportRoute(name: string, summary: string, body: z.ZodType, auth: MiddlewareHandler) {
  return createRoute({
    method: "post",
    path: `/worker/jobs/{id}/${name}`,
    operationId: `worker${name[0]?.toUpperCase()}${name.slice(1)}`,
    tags: ["Worker API"],
    summary,
    security: workerSecurity,
    middleware: [auth] as const,
    request: {
      params,
      body: { required: true, content: { "application/json": { schema: body } } },
    },
    responses: {
      200: {
        description: "Applied (`ok: true`), or ignored because the lease was lost (`ok: false`).",
        content: { "application/json": { schema: Ok } },
      },
      ...errorResponses(400, 401, 404, 503),
    },
  });
}

const HeartbeatBody = z
  .object({ kind: Kind, worker_id: WorkerId, progress: z.number().min(0).max(1).nullable() })
  .strict();
const NoteBody = z.object({ kind: Kind, worker_id: WorkerId, note: WorkNoteSchema }).strict();
const CompleteBody = z
  .object({ kind: Kind, worker_id: WorkerId, result: WorkResultSchema })
  .strict();
const FailBody = z.object({ kind: Kind, worker_id: WorkerId, failure: WorkFailureSchema }).strict();
const ReleaseBody = z.object({ kind: Kind, worker_id: WorkerId }).strict();

/** The report bodies, their examples naming a kind this server runs. */
function bodies(kind: string) {
  const worker_id = "gpu-1-w0";
  return {
    heartbeat: HeartbeatBody.openapi({ example: { kind, worker_id, progress: 0.4 } }),
    note: NoteBody.openapi({
      example: { kind, worker_id, note: { measuredDurationSec: 10.04, inputBytes: 812345 } },
    }),
    complete: CompleteBody.openapi({
      example: { kind, worker_id, result: { outputBytes: 812345, meta: {} } },
    }),
    fail: FailBody.openapi({
      example: {
        kind,
        worker_id,
        failure: { kind: "retry", message: "The engine crashed; the job will be retried." },
      },
    }),
    release: ReleaseBody.openapi({ example: { kind, worker_id } }),
  };
}

async function queueFor(source: Source, kind: string): Promise<JobQueue> {
  try {
    return (await source()).queue(kind);
  } catch {
    throw invalidField("kind", `this server runs no ${kind} jobs.`);
  }
}

function answer(outcome: ReportOutcome, id: string) {
  if (outcome === "not_found") throw new ApiError("not_found", `No job ${id} on this server.`);
  return { ok: outcome === "ok" };
}

export function registerReports(
  app: Router,
  auth: MiddlewareHandler,
  source: Source,
  kinds: readonly string[],
) {
  const body = bodies(kinds[0] ?? "kind");
  app.openapi(
    reportRoute("heartbeat", "Extend the lease, report progress", body.heartbeat, auth),
    async (c) => {
      // cast: the route validated the body with the kind's schema, a HeartbeatBody
      const b = c.req.valid("json") as z.infer<typeof HeartbeatBody>;
      const { id } = c.req.valid("param");
      const q = await queueFor(source, b.kind);
      const leaseMs = (await source()).leaseMs;
      return c.json(answer(await q.heartbeat(id, b.worker_id, leaseMs, b.progress), id), 200);
    },
  );
  app.openapi(
    reportRoute("note", "Tell what the attempt learned so far", body.note, auth),
    async (c) => {
      // cast: the route validated the body with the kind's schema, a NoteBody
      const b = c.req.valid("json") as z.infer<typeof NoteBody>;
      const { id } = c.req.valid("param");
      const q = await queueFor(source, b.kind);
      return c.json(answer(await q.note(id, b.worker_id, b.note), id), 200);
    },
  );
  app.openapi(reportRoute("complete", "Report the job done", body.complete, auth), async (c) => {
    // cast: the route validated the body with the kind's schema, a CompleteBody
    const b = c.req.valid("json") as z.infer<typeof CompleteBody>;
    const { id } = c.req.valid("param");
    const q = await queueFor(source, b.kind);
    return c.json(answer(await q.complete(id, b.worker_id, b.result), id), 200);
  });
  app.openapi(reportRoute("fail", "Report the attempt failed", body.fail, auth), async (c) => {
    // cast: the route validated the body with the kind's schema, a FailBody
    const b = c.req.valid("json") as z.infer<typeof FailBody>;
    const { id } = c.req.valid("param");
    const q = await queueFor(source, b.kind);
    return c.json(answer(await q.fail(id, b.worker_id, b.failure), id), 200);
  });
  app.openapi(
    reportRoute("release", "Hand the job back (worker shutting down)", body.release, auth),
    async (c) => {
      // cast: the route validated the body with the kind's schema, a ReleaseBody
      const b = c.req.valid("json") as z.infer<typeof ReleaseBody>;
      const { id } = c.req.valid("param");
      const q = await queueFor(source, b.kind);
      return c.json(answer(await q.release(id, b.worker_id), id), 200);
    },
  );
}
