import { createRoute } from "@hono/zod-openapi";
import { ClipIdParam, ClipResponse } from "../../../api/clips.js";
import { WaitQuery } from "../../../api/schemas.js";
import { getClip } from "../../../services/clips/commands.js";
import type { ClipDeps } from "../../../services/clips/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

export function registerGetClip(app: Router, deps: ClipDeps) {
  const route = createRoute({
    method: "get",
    path: "/motion/jobs/{id}",
    operationId: "getClip",
    tags: ["Motion clips"],
    summary: "Read a clip",
    description:
      "Status and progress; `video_url` and `download_url` once done. Another wallet's clip, or another agent key's, is a 404.",
    security: bearerSecurity,
    middleware: [requireKey(deps)] as const,
    request: { params: ClipIdParam, query: WaitQuery },
    responses: {
      200: { description: "The clip.", content: { "application/json": { schema: ClipResponse } } },
      ...errorResponses(400, 401, 404),
    },
  });
  app.openapi(route, async (c) => {
    const wait = c.req.valid("query").wait ?? 0;
    const job = await getClip(deps, c.get("principal"), c.req.valid("param").id, {
      waitMs: wait * 1000,
      signal: c.req.raw.signal,
    });
    return c.json({ job }, 200);
  });
}
