import { createRoute, z } from "@hono/zod-openapi";
import { motionConfig } from "../../../services/clips/config.js";
import type { Router } from "../../router.js";

const Range = z.object({ min: z.number().int(), max: z.number().int() });

export const MotionConfig = z
  .object({
    sizes: z
      .array(
        z.object({
          size: z.string().openapi({ example: "480p" }),
          width: z.number().int(),
          height: z.number().int(),
          amount_cents: z.number().int().openapi({ example: 59 }),
          display: z.string().openapi({ example: "$0.59" }),
        }),
      )
      .openapi({ description: "Each size with its price in cents." }),
    default_size: z.string(),
    seconds: z.array(z.number().int()).openapi({ description: "Allowed clip lengths (only 5)." }),
    image_types: z.array(z.string()),
    image_max_bytes: z
      .number()
      .int()
      .openapi({ description: "Largest image, uploaded or fetched." }),
    prompt_max_chars: z.number().int(),
    list_max: z
      .number()
      .int()
      .openapi({ description: "GET /motion/jobs returns at most this many." }),
    topup_cents: Range.openapi({ description: "Card top-up range (POST /wallet/topup)." }),
    usdc_topup_cents: Range.openapi({
      description: "USDC top-up range (POST /wallet/topup/crypto).",
    }),
    key_limit_cents: Range.openapi({ description: "Agent key limit range (POST /wallet/keys)." }),
    refusal_codes: z.record(z.string(), z.string()).openapi({
      description: "Content-rule refusal codes (the `refused` field) and their meaning.",
    }),
  })
  .openapi("MotionConfig");

export function registerMotionConfig(app: Router) {
  const route = createRoute({
    method: "get",
    path: "/motion/config",
    operationId: "getMotionConfig",
    tags: ["Motion clips"],
    summary: "Clip sizes, prices and limits",
    description:
      "Sizes with prices, allowed lengths, image types and size limit, prompt limit, top-up and key-limit ranges, and the refusal codes. No key needed.",
    responses: {
      200: {
        description: "The motion configuration.",
        content: { "application/json": { schema: MotionConfig } },
      },
    },
  });
  app.openapi(route, (c) => c.json(motionConfig(), 200));
}
