import { createRoute, z } from "@hono/zod-openapi";
import { IdParam } from "../../../api/schemas.js";
import type { CoreDeps } from "../../../services/deps.js";
import { setWalletPaused } from "../../../services/wallets.js";
import { errorResponses } from "../../errors.js";
import { requireAdmin } from "../../middleware/admin-auth.js";
import type { Router } from "../../router.js";

const Result = z.object({ id: z.string(), paused: z.boolean(), balance_cents: z.number().int() });

/** Registers both /pause and /unpause: the same operation with the switch set either way. */
export function registerPauseWallet(app: Router, deps: CoreDeps, adminToken: string) {
  for (const paused of [true, false]) {
    const route = createRoute({
      method: "post",
      path: `/admin/wallets/{id}/${paused ? "pause" : "unpause"}`,
      operationId: paused ? "pauseWallet" : "unpauseWallet",
      tags: ["Operator"],
      summary: paused ? "Pause a wallet" : "Unpause a wallet",
      description: paused
        ? "A paused wallet keeps its balance, can be read and topped up, and finishes jobs already paid, but every new charge is refused with 403."
        : "Lets the wallet spend again.",
      security: [{ admin: [] }],
      middleware: [requireAdmin(adminToken)] as const,
      request: {
        params: IdParam("id", "wal_4f8HkQ2n9LrT1xZcV6bYpA"),
        body: {
          required: false,
          content: {
            "application/json": {
              schema: z
                .object({ reason: z.string().max(500).optional() })
                .strict()
                .openapi({ example: { reason: "chargeback review" } }),
            },
          },
        },
      },
      responses: {
        200: {
          description: "The wallet's new state.",
          content: { "application/json": { schema: Result } },
        },
        ...errorResponses(400, 401, 404),
      },
    });
    app.openapi(route, async (c) => {
      const { id } = c.req.valid("param");
      const reason = c.req.valid("json")?.reason ?? null;
      const row = await setWalletPaused(deps, id, paused, reason);
      return c.json({ id: row.id, paused: row.paused, balance_cents: row.balance_cents }, 200);
    });
  }
}
