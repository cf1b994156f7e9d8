import { createRoute, z } from "@hono/zod-openapi";
import {
  CLIP_DIMENSIONS,
  CLIP_IMAGE_MAX_BYTES,
  CLIP_IMAGE_TYPES,
  CLIP_LIST_MAX,
  CLIP_PROMPT_MAX_CHARS,
  CLIP_SECONDS_ALLOWED,
  CLIP_SIZES,
  clipPrice,
  DEFAULT_CLIP_SIZE,
} from "../../../domain/clips/rules.js";
import {
  AGENT_KEY_LIMIT_CENTS,
  CARD_TOPUP_CENTS,
  USDC_TOPUP_CENTS,
} from "../../../domain/limits.js";
import { REFUSAL_CODES } from "../../../engines/moderation/prompt-rule.js";
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

export function motionConfig() {
  return {
    sizes: CLIP_SIZES.map((size) => ({ ...CLIP_DIMENSIONS[size], ...clipPrice(size) })),
    default_size: DEFAULT_CLIP_SIZE,
    seconds: [...CLIP_SECONDS_ALLOWED],
    image_types: [...CLIP_IMAGE_TYPES],
    image_max_bytes: CLIP_IMAGE_MAX_BYTES,
    prompt_max_chars: CLIP_PROMPT_MAX_CHARS,
    list_max: CLIP_LIST_MAX,
    topup_cents: { ...CARD_TOPUP_CENTS },
    usdc_topup_cents: { ...USDC_TOPUP_CENTS },
    key_limit_cents: { ...AGENT_KEY_LIMIT_CENTS },
    refusal_codes: { ...REFUSAL_CODES },
  };
}

export function registerMotionConfig(app: Router) {
  const route = createRoute({
    method: "get",
    path: "/motion/config",
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
