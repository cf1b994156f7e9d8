import { createRoute, z } from "@hono/zod-openapi";
import { Email, Wallet } from "../../../api/schemas.js";
import type { CoreDeps } from "../../../services/deps.js";
import { createWallet } from "../../../services/wallets.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";

const route = createRoute({
  method: "post",
  path: "/wallet",
  operationId: "createWallet",
  tags: ["Balance"],
  summary: "Create a wallet",
  description:
    "Creates an empty wallet and its wallet key (`pmk_`). The key is shown once: store it. No authentication.",
  request: {
    body: {
      required: false,
      content: {
        "application/json": {
          schema: z
            .object({ email: Email.optional() })
            .strict()
            .openapi({ example: { email: "owner@example.com" } }),
        },
      },
    },
  },
  responses: {
    200: {
      description: "The wallet key (shown once) and the wallet.",
      content: {
        "application/json": {
          schema: z.object({
            key: z.string().openapi({ example: "pmk_2mYb9…", description: "Shown once." }),
            wallet: Wallet,
          }),
        },
      },
    },
    ...errorResponses(400),
  },
});

export function registerCreateWallet(app: Router, deps: CoreDeps) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json") ?? {};
    return c.json(await createWallet(deps, { email: body.email ?? null }), 200);
  });
}
