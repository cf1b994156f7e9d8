import { createRoute } from "@hono/zod-openapi";
import { JobEnvelope } from "../../../api/restore.js";
import { IdParam, WaitQuery } from "../../../api/schemas.js";
import { getRestoreJob } from "../../../services/restore/commands.js";
import type { RestoreDeps } from "../../../services/restore/deps.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";

export function registerGetJob(app: Router, p: RestoreDeps) {
  const route = createRoute({
    method: "get",
    path: "/cloud/jobs/{id}",
    operationId: "getRestore",
    tags: ["Cloud restore"],
    summary: "Read a restore job",
    description:
      "No key needed: the 128-bit job id is the capability. `progress` while processing; `download_url` (valid 1 hour, fresh on every read) once done.",
    request: { params: IdParam("id", "rj_5pX0c1Hq3GvJ2Yb8Lw9RzA"), query: WaitQuery },
    responses: {
      200: { description: "The job.", content: { "application/json": { schema: JobEnvelope } } },
      ...errorResponses(400, 404),
    },
  });
  app.openapi(route, async (c) => {
    const wait = c.req.valid("query").wait ?? 0;
    const job = await getRestoreJob(p, c.req.valid("param").id, {
      waitMs: wait * 1000,
      signal: c.req.raw.signal,
    });
    return c.json(job, 200);
  });
}
