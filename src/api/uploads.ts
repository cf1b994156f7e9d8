/**
 * Uploads in parts, as every surface shows them: the plan a large file gets instead of one
 * upload link, the part links a caller asks for, and the state a resumer reads. Kind-agnostic:
 * a job kind's contracts embed these for its own files.
 */
import { z } from "@hono/zod-openapi";
import { S3_PART_LIMITS } from "../domain/uploads.js";

/** How a file above UPLOAD_SINGLE_MAX_BYTES is sent: parts of `part_size_bytes`, then complete. */
export const UploadPlan = z
  .object({
    method: z.literal("parts"),
    size_bytes: z.number().int().openapi({ description: "The whole file, as declared." }),
    part_size_bytes: z.number().int().openapi({
      description: "Every part but the last is exactly this long; the last is the rest.",
      example: 67_108_864,
    }),
    part_count: z.number().int().openapi({ example: 12 }),
    checksum: z.literal("sha256").openapi({
      description:
        "Each part carries the base64 SHA-256 of its bytes: given when asking for its link, sent as the x-amz-checksum-sha256 header of its PUT; the store refuses a part that does not match.",
    }),
    expires_at: z.string().openapi({
      description: "Parts not joined by then are deleted (and the job expires with them).",
    }),
    steps: z.string().openapi({ description: "What to do, in order, in one paragraph." }),
  })
  .openapi("UploadPlan");

/** A part a caller is about to send, with its checksum. */
export const PartRequest = z
  .object({
    part_number: z
      .number({ error: "must be a part number" })
      .int("must be a whole part number")
      .min(1, "must be at least 1")
      .max(S3_PART_LIMITS.maxParts, `must be at most ${S3_PART_LIMITS.maxParts}`),
    sha256: z
      .string({ error: "must be the part's base64 SHA-256" })
      .max(64, "must be the part's base64 SHA-256 (44 characters)")
      .meta({
        description:
          "The base64 SHA-256 of the part's bytes (44 characters), e.g. `openssl dgst -sha256 -binary part | base64`.",
      }),
  })
  .strict()
  .openapi("PartRequest");

/** One part's link: PUT exactly the part's bytes to `url` with `headers`. */
export const PartTicket = z
  .object({
    part_number: z.number().int(),
    size_bytes: z.number().int(),
    url: z.string(),
    headers: z.record(z.string(), z.string()).openapi({
      description:
        "Send exactly these with the PUT (the checksum header); Content-Length must be size_bytes.",
    }),
    expires_at: z.string(),
  })
  .openapi("PartTicket");

/** A part the store holds. */
export const ReceivedPart = z
  .object({
    part_number: z.number().int(),
    size_bytes: z.number().int(),
    etag: z.string(),
    sha256: z.string(),
  })
  .openapi("ReceivedPart");

/** Where an upload in parts stands: what arrived, what is missing. */
export const UploadProgress = z
  .object({
    status: z.enum(["open", "completing", "completed", "aborted"]).openapi({
      description:
        "open: parts are taken; completing: being joined; completed: the file is whole; aborted: its parts were deleted.",
    }),
    size_bytes: z.number().int(),
    part_size_bytes: z.number().int(),
    part_count: z.number().int(),
    received_bytes: z.number().int(),
    received_parts: z.number().int(),
    parts: z
      .array(ReceivedPart)
      .openapi({ description: "The parts that arrived whole, by number." }),
    missing: z.array(z.number().int()).openapi({ description: "Part numbers still to send." }),
    expires_at: z.string(),
  })
  .openapi("UploadProgress");

/** How far a job's upload in parts got, as the job shows it (its state has the parts). */
export const UploadSummary = z
  .object({
    method: z.literal("parts"),
    status: z.enum(["open", "completing", "completed", "aborted"]),
    size_bytes: z.number().int(),
    part_count: z.number().int(),
    received_parts: z.number().int(),
    received_bytes: z.number().int(),
  })
  .openapi("UploadSummary", {
    description: "A file sent in parts: how many arrived (reported by the uploader).",
  });

/** UploadSummary, as services build it. */
export type UploadSummaryView = z.input<typeof UploadSummary>;
/** UploadPlan, as services build it. */
export type UploadPlanView = z.input<typeof UploadPlan>;
/** PartTicket, as services build it. */
export type PartTicketView = z.input<typeof PartTicket>;
/** UploadProgress, as services build it. */
export type UploadProgressView = z.input<typeof UploadProgress>;
