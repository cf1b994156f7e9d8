import { createRoute, z } from "@hono/zod-openapi";
import { priceTableView } from "../../../domain/restore/pricing.js";
import type { Router } from "../../router.js";

export function registerPrices(app: Router) {
  const route = createRoute({
    method: "get",
    path: "/cloud/prices",
    operationId: "getRestorePrices",
    tags: ["Cloud restore"],
    summary: "The restore price table",
    description:
      "Base price per quality (up to 5 minutes), the per-minute price after it, the high-resolution factor and the limits.",
    responses: {
      200: {
        description: "The price table.",
        content: { "application/json": { schema: z.object({}).passthrough() } },
      },
    },
  });
  app.openapi(route, (c) => c.json(priceTableView(), 200));
}
