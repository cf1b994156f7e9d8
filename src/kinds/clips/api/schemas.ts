/** The motion clip contract shared by REST and MCP: requests, clips and the public limits. */
import { z } from "@hono/zod-openapi";
import { QueueEstimate, Wallet } from "../../../api/schemas.js";
import { MaxPriceFields, type SpendQuote } from "../../../api/spend.js";
import { JobWebhook, JobWebhookFields } from "../../../api/webhooks.js";
import {
  CLIP_IMAGE_MAX_BYTES,
  CLIP_IMAGE_TYPES,
  CLIP_IMAGE_URL_MAX_CHARS,
  CLIP_PROMPT_MAX_CHARS,
  CLIP_SEED_MAX,
  CLIP_SIZES,
  clipPrice,
} from "../rules/rules.js";
import { CLIP_STATUSES } from "../rules/transitions.js";

/** Each size with its price, as the `size` field describes it. */
const SIZE_PRICES = CLIP_SIZES.map((size) => `${size}: ${clipPrice(size).display}`).join(", ");

const Range = z.object({ min: z.number().int(), max: z.number().int() });

/** A motion clip as every surface shows it (REST, MCP, the console, the client). */
export const Clip = z
  .object({
    id: z.string().openapi({ example: "clip_5R2kq9WcD1xv0Lm3Tz8HbN" }),
    status: z.enum(CLIP_STATUSES).openapi({
      description:
        "awaiting_upload → queued → processing → done; or failed / refused (refunded), cancelled (refunded), expired (upload never arrived: refunded; or a done clip whose files were deleted after retention).",
    }),
    size: z.enum(CLIP_SIZES),
    seconds: z.number().int().openapi({ example: 5 }),
    prompt: z.string(),
    loop: z.boolean(),
    amount_cents: z.number().int().openapi({ example: 59 }),
    seed: z.number().int().nullable().openapi({
      description: "The seed used; the same image, prompt, size, loop and seed make the same clip.",
    }),
    image_url: z.string().nullable().openapi({ description: "The image_url given at create." }),
    progress: z.number().nullable().openapi({ description: "0..1 while processing." }),
    error: z
      .string()
      .nullable()
      .openapi({ description: "Why the clip failed, was refused, cancelled or expired." }),
    refused: z
      .string()
      .nullable()
      .openapi({ description: "Content-rule refusal code when status is refused." }),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
    expires_at: z
      .string()
      .nullable()
      .openapi({ description: "When the video will be deleted (done clips)." }),
    queue: QueueEstimate.nullable().openapi({
      description:
        "While queued or processing: queue.state (queued with its position, or running at position 0) and the estimated time to done; null in every other status.",
    }),
    webhook: JobWebhook.nullable().optional().openapi({
      description: "The job's own webhook_url, its events and latest deliveries; null without one.",
    }),
    video_url: z.string().optional().openapi({
      description: "Set once done: a temporary link to the MP4 (plays in a <video> element).",
    }),
    download_url: z
      .string()
      .optional()
      .openapi({ description: "Set once done: a temporary link that saves clip_….mp4." }),
  })
  .openapi("Clip");

/** The answer of a read, start or cancel of one clip. */
export const ClipResponse = z.object({ job: Clip });

/**
 * What creating a clip takes: the prompt, the image (a URL or a file to upload), size, loop, seed,
 * webhook.
 */
export const CreateClipBody = z
  .object({
    prompt: z
      .string({ error: "is required: describe the motion and sound, at most 800 characters" })
      .trim()
      .min(1, "must not be empty")
      .max(CLIP_PROMPT_MAX_CHARS, `must be at most ${CLIP_PROMPT_MAX_CHARS} characters`)
      .meta({
        description:
          "The motion and the sound, in words. Nothing sexual or nude, nothing sexual or suggestive with a minor: refused, nothing charged.",
      }),
    image_url: z
      .string()
      .max(CLIP_IMAGE_URL_MAX_CHARS, `must be at most ${CLIP_IMAGE_URL_MAX_CHARS} characters`)
      // No regex flags: the pattern is published in the OpenAPI document as is.
      .regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\/\S+$/, "must be an http(s) URL")
      .optional()
      .meta({
        description:
          "A public JPEG, PNG or WebP (up to 10 MB): the clip starts at once. Or content_type.",
      }),
    content_type: z
      .enum(CLIP_IMAGE_TYPES, { error: "must be image/jpeg, image/png or image/webp" })
      .optional()
      .meta({
        description: "Without image_url: the image's type; PUT it to upload_url, then start.",
      }),
    image_bytes: z
      .number({ error: `must be an integer from 1 to ${CLIP_IMAGE_MAX_BYTES}` })
      .int(`must be an integer from 1 to ${CLIP_IMAGE_MAX_BYTES}`)
      .min(1, `must be an integer from 1 to ${CLIP_IMAGE_MAX_BYTES}`)
      .max(CLIP_IMAGE_MAX_BYTES, `must be at most ${CLIP_IMAGE_MAX_BYTES} bytes (10 MB)`)
      .optional()
      .meta({
        description: "The image's exact size, if known: the upload link then takes exactly that.",
        minimum: 1,
        maximum: CLIP_IMAGE_MAX_BYTES,
      }),
    size: z
      .enum(CLIP_SIZES, { error: "must be 480p or 720p" })
      .default("480p")
      .meta({ description: `${SIZE_PRICES}.` }),
    seconds: z
      .number({ error: "only 5 is allowed" })
      .int("only 5 is allowed")
      .min(5, "only 5 is allowed")
      .max(5, "only 5 is allowed")
      .default(5)
      .meta({ description: "Seconds: only 5." }),
    loop: z
      .boolean({ error: "must be true or false" })
      .default(false)
      .meta({ description: "A seamless loop: the end leads back into the start." }),
    seed: z
      .number({ error: `must be an integer from 0 to ${CLIP_SEED_MAX}` })
      .int(`must be an integer from 0 to ${CLIP_SEED_MAX}`)
      .min(0, `must be an integer from 0 to ${CLIP_SEED_MAX}`)
      .max(CLIP_SEED_MAX, `must be an integer from 0 to ${CLIP_SEED_MAX}`)
      .optional()
      .meta({
        description: "Same inputs and seed make the same clip; chosen if not given.",
        minimum: 0,
        maximum: CLIP_SEED_MAX,
      }),
    ...JobWebhookFields,
    ...MaxPriceFields,
  })
  .strict()
  .openapi({
    example: {
      prompt: "slow push in, rain on the window",
      content_type: "image/jpeg",
      image_bytes: 245_760,
      size: "480p",
    },
  });

/**
 * The answer to a create: the clip, where to upload its image (without image_url), and the wallet
 * after the charge.
 */
export const CreatedClip = z.object({
  job: Clip,
  upload_url: z.string().optional(),
  upload_headers: z.record(z.string(), z.string()).optional(),
  wallet: Wallet,
});

/**
 * The public clip settings: sizes and prices, lengths, image types and limits, top-up ranges,
 * refusal codes.
 */
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

/** A clip as every surface shows it. */
export type ClipView = z.input<typeof Clip>;

/** What making this clip takes from the balance, and what it buys: "Make a 5 s 480p clip of …". */
export function clipSpend(input: z.output<typeof CreateClipBody>): SpendQuote {
  const prompt = input.prompt.length > 60 ? `${input.prompt.slice(0, 57)}…` : input.prompt;
  return {
    cents: clipPrice(input.size).amount_cents,
    what: `Make a ${input.seconds} s ${input.size} clip: "${prompt}"`,
  };
}
