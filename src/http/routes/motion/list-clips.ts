import { createRoute, z } from "@hono/zod-openapi";
import { Clip } from "../../../api/clips.js";
import { PageQuery } from "../../../api/schemas.js";
import { listClipsPage } from "../../../services/clips/commands.js";
import type { ClipDeps } from "../../../services/clips/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

export function registerListClips(app: Router, deps: ClipDeps) {
  const route = createRoute({
    method: "get",
    path: "/motion/jobs",
    operationId: "listClips",
    tags: ["Motion clips"],
    summary: "List clips",
    description:
      "Up to 40 clips a page (`limit`, default 40), newest first; `next_cursor` fetches older ones. The wallet key sees all of the wallet's clips; an agent key only its own.",
    security: bearerSecurity,
    middleware: [requireKey(deps)] as const,
    request: { query: PageQuery },
    responses: {
      200: {
        description: "The clips.",
        content: {
          "application/json": {
            schema: z.object({
              clips: z.array(Clip).max(40),
              next_cursor: z.string().nullable().openapi({
                description: "Pass as `cursor` for the next (older) page; null on the last.",
              }),
            }),
          },
        },
      },
      ...errorResponses(400, 401),
    },
  });
  app.openapi(route, async (c) =>
    c.json(await listClipsPage(deps, c.get("principal"), c.req.valid("query")), 200),
  );
}
