import { createRoute, z } from "@hono/zod-openapi";
import {
  CLIP_IMAGE_MAX_BYTES,
  CLIP_IMAGE_TYPES,
  CLIP_IMAGE_URL_MAX_CHARS,
  CLIP_PROMPT_MAX_CHARS,
  CLIP_SEED_MAX,
  CLIP_SIZES,
  type ClipSize,
} from "../../../domain/clips/rules.js";
import { createClip } from "../../../services/clips/create.js";
import type { ClipDeps } from "../../../services/clips/deps.js";
import { errorResponses } from "../../errors.js";
import { requireKey } from "../../middleware/auth.js";
import { bearerSecurity, type Router } from "../../router.js";
import { Wallet } from "../../schemas.js";
import { Clip } from "./schemas.js";

export const CreateClipBody = z
  .object({
    prompt: z
      .string({ error: "is required: describe the motion and sound, at most 800 characters" })
      .trim()
      .min(1, "must not be empty")
      .max(CLIP_PROMPT_MAX_CHARS, `must be at most ${CLIP_PROMPT_MAX_CHARS} characters`),
    image_url: z
      .string()
      .max(CLIP_IMAGE_URL_MAX_CHARS, `must be at most ${CLIP_IMAGE_URL_MAX_CHARS} characters`)
      // No regex flags: the pattern is published in the OpenAPI document as is.
      .regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\/\S+$/, "must be an http(s) URL")
      .optional()
      .openapi({
        description: "A public image; when given, the clip starts at once (status queued).",
      }),
    content_type: z
      .enum(CLIP_IMAGE_TYPES, { error: "must be image/jpeg, image/png or image/webp" })
      .optional()
      .openapi({ description: "Required without image_url." }),
    image_bytes: z
      .number({ error: `must be an integer from 1 to ${CLIP_IMAGE_MAX_BYTES}` })
      .int(`must be an integer from 1 to ${CLIP_IMAGE_MAX_BYTES}`)
      .min(1, `must be an integer from 1 to ${CLIP_IMAGE_MAX_BYTES}`)
      .max(CLIP_IMAGE_MAX_BYTES, `must be at most ${CLIP_IMAGE_MAX_BYTES} bytes (10 MB)`)
      .optional()
      .openapi({
        description:
          "Optional: the image's size. When given, the upload link accepts exactly this many bytes; without it, up to 10 MB, and start checks what arrived.",
      }),
    size: z
      .enum(CLIP_SIZES as [ClipSize, ...ClipSize[]], { error: "must be 480p or 720p" })
      .default("480p"),
    seconds: z
      .number({ error: "only 5 is allowed" })
      .int("only 5 is allowed")
      .min(5, "only 5 is allowed")
      .max(5, "only 5 is allowed")
      .default(5),
    loop: z.boolean({ error: "must be true or false" }).default(false),
    seed: z
      .number({ error: `must be an integer from 0 to ${CLIP_SEED_MAX}` })
      .int(`must be an integer from 0 to ${CLIP_SEED_MAX}`)
      .min(0, `must be an integer from 0 to ${CLIP_SEED_MAX}`)
      .max(CLIP_SEED_MAX, `must be an integer from 0 to ${CLIP_SEED_MAX}`)
      .optional()
      .openapi({ description: "Chosen and returned when not given." }),
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

export const CreatedClip = z.object({
  job: Clip,
  upload_url: z.string().optional(),
  upload_headers: z.record(z.string(), z.string()).optional(),
  wallet: Wallet,
});

export function registerCreateClip(app: Router, deps: ClipDeps) {
  const route = createRoute({
    method: "post",
    path: "/motion/jobs",
    operationId: "createClip",
    tags: ["Motion clips"],
    summary: "Make a clip",
    description:
      "Checks the prompt against the content rule (422 `refused`, nothing charged), then takes the price from the balance. With `image_url` the image is fetched now and the clip is queued at once; otherwise PUT the image to `upload_url` with `upload_headers` and call start.",
    security: bearerSecurity,
    middleware: [requireKey(deps)] as const,
    request: {
      body: { required: true, content: { "application/json": { schema: CreateClipBody } } },
    },
    responses: {
      200: {
        description:
          "The clip, the upload link when no image_url was given, and the wallet after the charge.",
        content: {
          "application/json": {
            schema: CreatedClip,
          },
        },
      },
      ...errorResponses(400, 401, 402, 403, 422),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const principal = c.get("principal");
    const result = await createClip(deps, principal, {
      prompt: body.prompt,
      size: body.size,
      seconds: body.seconds,
      loop: body.loop,
      seed: body.seed,
      imageUrl: body.image_url,
      contentType: body.content_type,
      imageBytes: body.image_bytes,
    });
    return c.json(result, 200);
  });
}
