import { createRoute, z } from "@hono/zod-openapi";
import { AgentKey, IdParam } from "../../../api/schemas.js";
import { revokeAgentKey } from "../../../services/agent-keys.js";
import type { CoreDeps } from "../../../services/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

export function registerRevokeKey(app: Router, deps: CoreDeps) {
  const route = createRoute({
    method: "post",
    path: "/wallet/keys/{id}/revoke",
    operationId: "revokeAgentKey",
    tags: ["Agent keys"],
    summary: "Revoke an agent key",
    description:
      "Stops the key at once. Revoking a revoked key returns it unchanged. Wallet key only.",
    security: bearerSecurity,
    "x-wallet-key-only": true,
    middleware: [requireKey(deps, { walletOnly: true })] as const,
    request: { params: IdParam("id", "key_3mJr7AoUXx7Wqd2vBZLWmU") },
    responses: {
      200: {
        description: "The key, revoked.",
        content: { "application/json": { schema: z.object({ agent_key: AgentKey }) } },
      },
      ...errorResponses(400, 401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    return c.json({ agent_key: await revokeAgentKey(deps, c.get("principal").walletId, id) }, 200);
  });
}
