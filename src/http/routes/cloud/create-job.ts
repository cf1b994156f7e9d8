import { createRoute } from "@hono/zod-openapi";
import { CreateBody, CreatedRestore } from "../../../api/restore.js";
import { createRestoreJob } from "../../../services/restore/create.js";
import type { RestoreDeps } from "../../../services/restore/deps.js";
import { errorResponses } from "../../errors.js";
import { optionalKey } from "../../middleware/auth.js";
import { optionalBearerSecurity, type Router } from "../../router.js";

export function registerCreateJob(app: Router, p: RestoreDeps) {
  const route = createRoute({
    method: "post",
    path: "/cloud/jobs",
    operationId: "createRestore",
    tags: ["Cloud restore"],
    summary: "Create a restore job",
    description:
      "With a key (and pay_with not checkout) the price is taken from the balance now and the job waits for its upload (`awaiting_upload`). Without a key, `email` is required and the job waits for payment (`pending_payment`): upload, then POST /cloud/jobs/{id}/checkout.",
    // The key is optional here: without one, an email pays by checkout; a bad key is a 401.
    security: optionalBearerSecurity,
    middleware: [optionalKey(p)] as const,
    request: { body: { required: true, content: { "application/json": { schema: CreateBody } } } },
    responses: {
      200: {
        description: "The job, where to upload the file and what to do next.",
        content: { "application/json": { schema: CreatedRestore } },
      },
      ...errorResponses(400, 401, 402, 403, 422),
    },
  });
  app.openapi(route, async (c) => {
    const b = c.req.valid("json");
    const result = await createRestoreJob(p, c.get("maybePrincipal"), {
      durationSec: b.duration_sec,
      quality: b.quality,
      width: b.width,
      height: b.height,
      filename: b.filename,
      contentType: b.content_type,
      sizeBytes: b.size,
      email: b.email,
      payWith: b.pay_with,
    });
    return c.json(result, 200);
  });
}
