import { createRoute, z } from "@hono/zod-openapi";
import type { CoreDeps } from "../../../services/deps.js";
import { reconcile } from "../../../services/reconcile.js";
import { errorResponses } from "../../errors.js";
import { requireAdmin } from "../../middleware/admin-auth.js";
import type { Router } from "../../router.js";

const Report = z.object({
  ok: z.boolean(),
  wallets_checked: z.number().int(),
  keys_checked: z.number().int(),
  entries_checked: z.number().int(),
  drift: z.array(
    z.object({
      kind: z.string(),
      id: z.string(),
      expected: z.number().int(),
      actual: z.number().int(),
    }),
  ),
});

export function registerReconcile(app: Router, deps: CoreDeps, adminToken: string) {
  const route = createRoute({
    method: "get",
    path: "/admin/reconcile",
    operationId: "reconcileLedger",
    tags: ["Operator"],
    summary: "Check every money invariant",
    description:
      "balance = Σ ledger entries, 0 ≤ spent ≤ limit, balance ≥ 0, one refund per job never above its charge. Reports drift; changes nothing.",
    security: [{ admin: [] }],
    middleware: [requireAdmin(adminToken)] as const,
    responses: {
      200: { description: "The report.", content: { "application/json": { schema: Report } } },
      ...errorResponses(401),
    },
  });
  app.openapi(route, async (c) => {
    const report = await reconcile(deps.db);
    // Metrics keep the last result, so an alert can fire on drift found by a scheduled call.
    deps.events?.reconciled({
      ok: report.ok,
      driftItems: report.drift.length,
      atMs: deps.clock().getTime(),
    });
    return c.json(report, 200);
  });
}
