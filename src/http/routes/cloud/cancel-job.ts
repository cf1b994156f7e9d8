import { createRoute, z } from "@hono/zod-openapi";
import { RestoreJob } from "../../../api/restore.js";
import { IdParam, Wallet } from "../../../api/schemas.js";
import { cancelRestoreJob } from "../../../services/restore/commands.js";
import type { RestoreDeps } from "../../../services/restore/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

export function registerCancelJob(app: Router, p: RestoreDeps) {
  const route = createRoute({
    method: "post",
    path: "/cloud/jobs/{id}/cancel",
    operationId: "cancelRestore",
    tags: ["Cloud restore"],
    summary: "Cancel a job whose file never arrived",
    description:
      "Balance-paid jobs only, while the file has not been uploaded: the price goes back to the balance (and the agent key's allowance). Cancelling a cancelled job returns it unchanged; 409 when it can no longer be cancelled.",
    security: bearerSecurity,
    middleware: [requireKey(p)] as const,
    request: { params: IdParam("id", "rj_5pX0c1Hq3GvJ2Yb8Lw9RzA") },
    responses: {
      200: {
        description: "The job, cancelled, and the wallet after the refund.",
        content: { "application/json": { schema: z.object({ job: RestoreJob, wallet: Wallet }) } },
      },
      ...errorResponses(400, 401, 402, 404, 409),
    },
  });
  app.openapi(route, async (c) =>
    c.json(await cancelRestoreJob(p, c.get("principal"), c.req.valid("param").id), 200),
  );
}
