import { createRoute } from "@hono/zod-openapi";
import { ClipIdParam, ClipResponse } from "../../../api/clips.js";
import { cancelClip } from "../../../services/clips/commands.js";
import type { ClipDeps } from "../../../services/clips/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

export function registerCancelClip(app: Router, deps: ClipDeps) {
  const route = createRoute({
    method: "post",
    path: "/motion/jobs/{id}/cancel",
    operationId: "cancelClip",
    tags: ["Motion clips"],
    summary: "Cancel a clip whose image never arrived",
    description:
      "Only while awaiting_upload and no image has arrived; the price goes back to the balance and the key's allowance at once. Cancelling a cancelled clip returns it unchanged; any other state is a 409.",
    security: bearerSecurity,
    middleware: [requireKey(deps)] as const,
    request: { params: ClipIdParam },
    responses: {
      200: {
        description: "The clip, cancelled and refunded.",
        content: { "application/json": { schema: ClipResponse } },
      },
      ...errorResponses(400, 401, 404, 409),
    },
  });
  app.openapi(route, async (c) =>
    c.json({ job: await cancelClip(deps, c.get("principal"), c.req.valid("param").id) }, 200),
  );
}
