import { createRoute, z } from "@hono/zod-openapi";
import { quoteRestore } from "../../../services/restore/quote.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";
import { QuoteBody } from "./schemas.js";

export const Quote = z.object({
  amount_cents: z.number().int().openapi({ example: 499 }),
  display: z.string().openapi({ example: "$4.99" }),
  quality: z.string(),
  quality_label: z.string(),
  duration_sec: z.number(),
  extra_minutes: z.number().int(),
  high_res: z.boolean(),
});

export function registerQuote(app: Router) {
  const route = createRoute({
    method: "post",
    path: "/cloud/quote",
    operationId: "quoteRestore",
    tags: ["Cloud restore"],
    summary: "Price a restore",
    description:
      "The price for a video of this length, size and quality. 422 when the video is over a limit.",
    request: { body: { required: true, content: { "application/json": { schema: QuoteBody } } } },
    responses: {
      200: { description: "The price.", content: { "application/json": { schema: Quote } } },
      ...errorResponses(400, 422),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const quote = quoteRestore({
      durationSec: body.duration_sec,
      quality: body.quality,
      width: body.width,
      height: body.height,
    });
    return c.json(quote, 200);
  });
}
