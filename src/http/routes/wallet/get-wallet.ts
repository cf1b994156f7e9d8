import { createRoute, z } from "@hono/zod-openapi";
import { Wallet } from "../../../api/schemas.js";
import type { CoreDeps } from "../../../services/deps.js";
import { walletView } from "../../../services/wallets.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";

export function registerGetWallet(app: Router, deps: CoreDeps) {
  const route = createRoute({
    method: "get",
    path: "/wallet",
    operationId: "getWallet",
    tags: ["Balance"],
    summary: "Read the wallet",
    description:
      "The wallet as the calling key sees it: `email` only for the wallet key, `agent_key` when an agent key calls, `spendable_cents` = what this key can spend now.",
    security: bearerSecurity,
    middleware: [requireKey(deps)] as const,
    responses: {
      200: {
        description: "The wallet.",
        content: { "application/json": { schema: z.object({ wallet: Wallet }) } },
      },
      ...errorResponses(400, 401),
    },
  });
  app.openapi(route, async (c) =>
    c.json({ wallet: await walletView(deps, c.get("principal")) }, 200),
  );
}
