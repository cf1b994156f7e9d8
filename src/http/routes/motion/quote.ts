import { createRoute, z } from "@hono/zod-openapi";
import { CLIP_SIZES, type ClipSize, clipPrice } from "../../../domain/clips/rules.js";
import { errorResponses } from "../../errors.js";
import type { Router } from "../../router.js";

const Query = z.object({
  size: z
    .enum(CLIP_SIZES as [ClipSize, ...ClipSize[]], { error: "must be 480p or 720p" })
    .default("480p")
    .openapi({ param: { name: "size", in: "query" }, example: "480p" }),
});

export function registerMotionQuote(app: Router) {
  const route = createRoute({
    method: "get",
    path: "/motion/quote",
    operationId: "quoteClip",
    tags: ["Motion clips"],
    summary: "Price of a clip",
    description: "The price of one 5-second clip at `size` (default 480p). No key needed.",
    request: { query: Query },
    responses: {
      200: {
        description: "The price.",
        content: {
          "application/json": {
            schema: z.object({
              size: z.string(),
              amount_cents: z.number().int().openapi({ example: 59 }),
              display: z.string().openapi({ example: "$0.59" }),
            }),
          },
        },
      },
      ...errorResponses(400),
    },
  });
  app.openapi(route, (c) => c.json(clipPrice(c.req.valid("query").size), 200));
}
