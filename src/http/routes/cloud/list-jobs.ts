import { createRoute, z } from "@hono/zod-openapi";
import { RestoreJob } from "../../../api/restore.js";
import { pageQuery } from "../../../api/schemas.js";
import type { RestoreDeps } from "../../../services/restore/deps.js";
import { LIST_LIMIT, listRestoreJobs } from "../../../services/restore/list.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

const { min, max } = LIST_LIMIT;
const Query = pageQuery({ min, max, example: LIST_LIMIT.default });

export function registerListJobs(app: Router, p: RestoreDeps) {
  const route = createRoute({
    method: "get",
    path: "/cloud/jobs",
    operationId: "listRestores",
    tags: ["Cloud restore"],
    summary: "List restore jobs",
    description: `Restore jobs, newest first, \`limit\` (${min}–${max}, default ${LIST_LIMIT.default}) at a time; pass \`next_cursor\` back as \`cursor\` for the next page (null on the last). The wallet key sees all of the wallet's jobs; an agent key only the jobs it created.`,
    security: bearerSecurity,
    middleware: [requireKey(p)] as const,
    request: { query: Query },
    responses: {
      200: {
        description: "A page of jobs.",
        content: {
          "application/json": {
            schema: z.object({ jobs: z.array(RestoreJob), next_cursor: z.string().nullable() }),
          },
        },
      },
      ...errorResponses(400, 401),
    },
  });
  app.openapi(route, async (c) =>
    c.json(await listRestoreJobs(p, c.get("principal"), c.req.valid("query")), 200),
  );
}
