import { createRoute, z } from "@hono/zod-openapi";
import { AgentKey } from "../../../api/schemas.js";
import { listAgentKeys } from "../../../services/agent-keys.js";
import type { CoreDeps } from "../../../services/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

export function registerListKeys(app: Router, deps: CoreDeps) {
  const route = createRoute({
    method: "get",
    path: "/wallet/keys",
    operationId: "listAgentKeys",
    tags: ["Agent keys"],
    summary: "List agent keys",
    description:
      "Every agent key and connected app of the wallet, newest first, without secrets. Wallet key only.",
    security: bearerSecurity,
    "x-wallet-key-only": true,
    middleware: [requireKey(deps, { walletOnly: true })] as const,
    responses: {
      200: {
        description: "The agent keys.",
        content: { "application/json": { schema: z.object({ keys: z.array(AgentKey) }) } },
      },
      ...errorResponses(400, 401, 403),
    },
  });
  app.openapi(route, async (c) =>
    c.json({ keys: await listAgentKeys(deps, c.get("principal").walletId) }, 200),
  );
}
