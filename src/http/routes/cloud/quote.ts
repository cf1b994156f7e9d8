import { createRoute } from "@hono/zod-openapi";
import { Quote, QuoteBody } from "../../../api/restore.js";
import { quoteRestore } from "../../../services/restore/quote.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";

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
