import { createRoute, z } from "@hono/zod-openapi";
import { listClips } from "../../../services/clips/commands.js";
import type { ClipDeps } from "../../../services/clips/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";
import { Clip } from "./schemas.js";

export function registerListClips(app: Router, deps: ClipDeps) {
  const route = createRoute({
    method: "get",
    path: "/motion/jobs",
    tags: ["Motion clips"],
    summary: "List clips",
    description:
      "Up to 40 clips, newest first. The wallet key sees all of the wallet's clips; an agent key only its own.",
    security: bearerSecurity,
    middleware: [requireKey(deps)] as const,
    responses: {
      200: {
        description: "The clips.",
        content: { "application/json": { schema: z.object({ clips: z.array(Clip) }) } },
      },
      ...errorResponses(400, 401),
    },
  });
  app.openapi(route, async (c) =>
    c.json({ clips: await listClips(deps, c.get("principal")) }, 200),
  );
}
