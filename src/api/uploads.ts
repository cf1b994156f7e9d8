/**
 * Uploads in parts, as every surface shows them: the plan a large file gets instead of one
 * upload link, the part links a caller asks for, and the state a resumer reads. Kind-agnostic:
 * a job kind's contracts embed these for its own files.
 */
import { z } from "@hono/zod-openapi";
import { CHECKSUM_ALGORITHMS, PART_CHECKSUMS, S3_PART_LIMITS } from "../domain/uploads.js";

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
    checksum: z.enum(PART_CHECKSUMS).openapi({
      description:
        "What each part carries: `crc32`, the base64 of its CRC32 (IEEE, as zlib, gzip and S3 compute it; the 4 bytes big-endian: 8 characters), or `sha256`, the base64 of its SHA-256 (44 characters). Given as `checksum` when asking for the part's link and sent as its x-amz-checksum-crc32 (or -sha256) header; the store refuses a part that does not match.",
      example: "crc32",
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
    checksum: z
      .string({ error: "must be the part's base64 checksum" })
      .max(64, "must be the part's base64 checksum (8 characters for CRC32, 44 for SHA-256)")
      .optional()
      .meta({
        description:
          "The part's checksum in the plan's algorithm, base64. CRC32: `python3 -c 'import zlib,sys,base64; print(base64.b64encode(zlib.crc32(open(sys.argv[1],\"rb\").read()).to_bytes(4,\"big\")).decode())' part`; SHA-256: `openssl dgst -sha256 -binary part | base64`.",
      }),
    sha256: z
      .string({ error: "must be the part's base64 SHA-256" })
      .max(64, "must be the part's base64 SHA-256 (44 characters)")
      .optional()
      .meta({
        description:
          "Deprecated: the name `checksum` had for uploads whose plan says `sha256`, still taken for them.",
        deprecated: true,
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
    checksum: z.string().openapi({ description: "The part's checksum (the plan's algorithm)." }),
    sha256: z.string().optional().openapi({
      description: "Deprecated: `checksum` again, for uploads whose plan says sha256.",
    }),
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
    checksum: z.enum(CHECKSUM_ALGORITHMS).openapi({
      description: "What each part carries (as the plan said).",
    }),
    received_bytes: z.number().int(),
    received_parts: z.number().int(),
    parts: z
      .array(ReceivedPart)
      .openapi({ description: "The parts that arrived whole, by number." }),
    missing: z.array(z.number().int()).openapi({ description: "Part numbers still to send." }),
    expires_at: z.string(),
  })
  .openapi("UploadProgress");

/**
 * A part's report answers the upload's state; asked `brief`, without the list of parts and
 * the list of those missing (an uploader of thousands of parts reads the counts only).
 */
export const UploadReport = UploadProgress.extend({
  parts: UploadProgress.shape.parts.optional().openapi({
    description:
      "The parts that arrived whole, by number (left out when the report asked `brief`).",
  }),
  missing: UploadProgress.shape.missing.optional().openapi({
    description: "Part numbers still to send (left out when the report asked `brief`).",
  }),
}).openapi("UploadReport");

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
/** UploadReport, as services build it. */
export type UploadReportView = z.input<typeof UploadReport>;
