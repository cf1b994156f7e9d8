/** OpenAPI schemas of the motion clip routes. */
import { z } from "@hono/zod-openapi";
import { CLIP_STATUSES } from "../../../domain/clips/transitions.js";
import { QueueEstimate } from "../../schemas.js";

export const Clip = z
  .object({
    id: z.string().openapi({ example: "clip_5R2kq9WcD1xv0Lm3Tz8HbN" }),
    status: z.enum(CLIP_STATUSES as [string, ...string[]]).openapi({
      description:
        "awaiting_upload → queued → processing → done; or failed / refused (refunded), cancelled (refunded), expired (upload never arrived: refunded; or a done clip whose files were deleted after retention).",
    }),
    size: z.enum(["480p", "720p"]),
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
        "While queued or processing: queue position and estimated time to done (position 0 once a worker runs it); null in every other status.",
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

export const ClipIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(120)
    .openapi({ param: { name: "id", in: "path" }, example: "clip_5R2kq9WcD1xv0Lm3Tz8HbN" }),
});

export const ClipResponse = z.object({ job: Clip });
