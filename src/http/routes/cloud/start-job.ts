import { createRoute } from "@hono/zod-openapi";
import { JobEnvelope } from "../../../api/restore.js";
import { IdParam } from "../../../api/schemas.js";
import { startRestoreJob } from "../../../services/restore/commands.js";
import type { RestoreDeps } from "../../../services/restore/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

export function registerStartJob(app: Router, p: RestoreDeps) {
  const route = createRoute({
    method: "post",
    path: "/cloud/jobs/{id}/start",
    operationId: "startRestore",
    tags: ["Cloud restore"],
    summary: "Start a restore once the file is uploaded",
    description:
      "Checks the upload (present, declared size and type) and moves the job to `processing`. Starting a started job returns it unchanged. 400 says what is wrong with the upload.",
    security: bearerSecurity,
    middleware: [requireKey(p)] as const,
    request: { params: IdParam("id", "rj_5pX0c1Hq3GvJ2Yb8Lw9RzA") },
    responses: {
      200: {
        description: "The job, processing.",
        content: { "application/json": { schema: JobEnvelope } },
      },
      ...errorResponses(400, 401, 402, 404, 409),
    },
  });
  app.openapi(route, async (c) =>
    c.json(await startRestoreJob(p, c.get("principal"), c.req.valid("param").id), 200),
  );
}
