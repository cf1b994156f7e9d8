import { createRoute } from "@hono/zod-openapi";
import { ClipIdParam, ClipResponse } from "../../../api/clips.js";
import { startClip } from "../../../services/clips/commands.js";
import type { ClipDeps } from "../../../services/clips/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

export function registerStartClip(app: Router, deps: ClipDeps) {
  const route = createRoute({
    method: "post",
    path: "/motion/jobs/{id}/start",
    operationId: "startClip",
    tags: ["Motion clips"],
    summary: "Start a clip once its image is uploaded",
    description:
      "Checks the uploaded image (type and size) and queues the clip. Calling it again on a queued, processing or done clip returns the clip unchanged.",
    security: bearerSecurity,
    middleware: [requireKey(deps)] as const,
    request: { params: ClipIdParam },
    responses: {
      200: {
        description: "The clip, queued.",
        content: { "application/json": { schema: ClipResponse } },
      },
      ...errorResponses(400, 401, 404, 409),
    },
  });
  app.openapi(route, async (c) =>
    c.json({ job: await startClip(deps, c.get("principal"), c.req.valid("param").id) }, 200),
  );
}
