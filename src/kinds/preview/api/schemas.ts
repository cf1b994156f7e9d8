/** The preview kind's requests and views, shared by REST, MCP and the console. */
import { z } from "@hono/zod-openapi";
import { FadeField, FadeView, QueueEstimate } from "../../../api/schemas.js";
import {
  PREVIEW_EXCERPT_MAX_SEC,
  PREVIEW_QUALITIES,
  PREVIEW_STATUSES,
} from "../rules/transitions.js";

const int = (error: string) => z.number({ error }).int(error);

/** How the video reaches a preview: an upload's size and type, or a public URL. */
export const PreviewSourceFields = {
  size: int("the file size in bytes, an integer")
    .min(1, "must be at least 1 byte")
    .optional()
    .meta({
      description: "Bytes, to upload it.",
      minimum: 1,
    }),
  content_type: z
    .string({ error: "must be the file's video type, e.g. video/mp4" })
    .min(1, "must not be empty")
    .max(255, "must be at most 255 characters")
    .optional()
    .meta({ description: "With size: e.g. video/mp4." }),
  video_url: z
    .string({ error: "must be a public http(s) URL of the video" })
    .min(1, "must not be empty")
    .max(2048, "must be at most 2048 characters")
    .optional()
    .meta({ description: "Or a public URL of it." }),
};

/** What creating a preview takes: an upload's size and type, or a video_url; and the fade hint. */
export const CreatePreviewBody = z
  .object({ ...PreviewSourceFields, fade: FadeField })
  .strict()
  .openapi("CreatePreviewRequest", { example: { size: 48_211_904, content_type: "video/mp4" } });

/** One quality's part of a done preview: the clip, its stills, and the plan in words. */
export const PreviewQualityView = z
  .object({
    quality: z.enum(PREVIEW_QUALITIES),
    label: z.string().openapi({ example: "Enhanced" }),
    words: z.array(z.string()).openapi({
      description: "What this quality would do to the video, in words.",
      example: ["deinterlaced, bottom field first", "light grain removed"],
    }),
    width: z.number().int(),
    height: z.number().int(),
    clip_url: z.string().openapi({ description: "The restored excerpt (MP4, ≤ 6 s)." }),
    after_url: z.string().openapi({ description: "The excerpt's middle frame, restored (JPEG)." }),
    pair_url: z
      .string()
      .openapi({ description: "Before and after side by side (JPEG), at the result's size." }),
  })
  .openapi("PreviewQuality");

/** A done preview's findings and files. */
export const PreviewFindings = z
  .object({
    duration_sec: z.number().openapi({ description: "The video's measured length." }),
    start_sec: z.number().openapi({ description: "Where the excerpt starts." }),
    length_sec: z
      .number()
      .max(PREVIEW_EXCERPT_MAX_SEC)
      .openapi({ description: "How long it is (at most 6 s)." }),
    found: z.array(z.string()).openapi({
      description: "Why there: the damage the analysis measured in that excerpt.",
    }),
    before_url: z.string().openapi({ description: "The excerpt's middle frame as it is (JPEG)." }),
    qualities: z.array(PreviewQualityView),
  })
  .openapi("PreviewFindings");

/** A preview as every surface shows it. */
export const PreviewJob = z
  .object({
    id: z.string().openapi({ example: "pv_4f8HkQ2n9LrT1xZcV6bYpA" }),
    status: z.enum(PREVIEW_STATUSES),
    price_cents: z.literal(0).openapi({ description: "Previews are free." }),
    amount_cents: z.literal(0).openapi({ description: "Charged: nothing." }),
    progress: z.number().nullable(),
    size: z.number().int().nullable(),
    video_url: z.string().nullable(),
    fade: FadeView,
    error: z.string().nullable(),
    error_code: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
    expires_at: z
      .string()
      .nullable()
      .openapi({ description: "The upload's deadline, then when the files are deleted." }),
    queue: QueueEstimate.nullable(),
    preview: PreviewFindings.nullable().openapi({ description: "Once done." }),
  })
  .openapi("PreviewJob");
/** A preview, as a handler returns it. */
export type PreviewView = z.input<typeof PreviewJob>;

/** The answer of every read, start and cancel. */
export const PreviewAnswer = z.object({ job: PreviewJob });

/** The created preview, where its video goes (uploads), and what to do next. */
export const CreatedPreview = z.object({
  job: PreviewJob,
  upload_url: z.string().optional().openapi({ description: "PUT the file here (uploads)." }),
  upload_headers: z.record(z.string(), z.string()).optional(),
  next: z.string(),
});

/** What a preview costs (nothing) and its limits. */
export const PreviewPrices = z.object({
  price_cents: z.literal(0),
  excerpt_sec: z.number(),
  excerpt_max_sec: z.number(),
  per_hour: z.number().int().openapi({ description: "Previews a wallet may make per hour." }),
  max_duration_sec: z.number().int(),
  max_size_bytes: z.number().int(),
  qualities: z.array(z.enum(PREVIEW_QUALITIES)),
});
