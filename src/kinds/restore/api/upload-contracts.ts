/**
 * A restore's file in parts (a declared size above UPLOAD_SINGLE_MAX_BYTES): part links in
 * pages, each bound to its part's checksum; a part reported with its ETag; which parts arrived;
 * complete. Over MCP get_restore reads the state and hands out links; start_restore completes.
 * With a key the job must be the key's; a job paid by checkout without a key is reached by its
 * 128-bit id, as its upload_url would be.
 */
import { z } from "@hono/zod-openapi";
import { defineContract } from "../../../api/operation.js";
import { JobIdField } from "../../../api/schemas.js";
import { PartRequest, PartTicket, UploadProgress, UploadReport } from "../../../api/uploads.js";
import { S3_PART_LIMITS } from "../../../domain/uploads.js";
import { JobEnvelope } from "./schemas.js";

const TAGS = ["Cloud restore"] as const;
const JOB = { job_id: JobIdField("rj_5pX0c1Hq3GvJ2Yb8Lw9RzA") };
const UPLOAD_ERRORS = ["not_found", "wrong_state", "already_uploaded", "conflict"] as const;

/** How the upload services word their refusals (the documentation's examples). */
const SAID = {
  not_found: "Restore job not found (or not visible to this key).",
  wrong_state: "This job was cancelled and refunded; its parts were deleted.",
  already_uploaded: "This job is processing: its file arrived whole.",
  conflict: "The file's parts are being joined now; read the job again in a moment.",
  not_uploaded: "Parts 2, 4–5 of 5 have not arrived: send them, then complete again.",
  upload_mismatch:
    "Part 3 is 1048576 bytes but the plan says 67108864; send it again with its link.",
} as const;

const PartsField = z
  .array(PartRequest, { error: "must be a list of {part_number, checksum}" })
  .min(1, "must list at least one part")
  .max(1000, "must list at most 1000 parts (ask again for the rest)")
  .meta({
    description:
      "The parts to send next (up to 1000), each with the base64 checksum of its bytes in the plan's algorithm (crc32 or sha256); the link binds it.",
  });

/** The state of an upload in parts, with the job's id. */
const UploadState = z.object({ job_id: z.string(), upload: UploadProgress });

/** Links for parts about to be sent. */
export const getRestorePartLinks = defineContract({
  id: "getRestorePartLinks",
  auth: "optional",
  input: z
    .object({ ...JOB, parts: PartsField })
    .strict()
    .openapi({
      example: {
        parts: [{ part_number: 1, checksum: "NhCmhg==" }],
      },
    }),
  output: z.object({ job_id: z.string(), parts: z.array(PartTicket) }),
  errors: [...UPLOAD_ERRORS],
  examples: SAID,
  rest: {
    method: "post",
    path: "/cloud/jobs/{id}/upload/parts",
    names: { job_id: "id" },
    tags: TAGS,
    summary: "Links for parts of a file sent in parts",
    description: `For a job whose create answer had \`upload\` (a plan) instead of upload_url: one link per part asked for (up to 1000 at a time, any part numbers from 1 to part_count), each bound to the part's exact size and to the base64 checksum given for it (the plan's \`checksum\`: crc32, or sha256), and valid 1 hour. PUT the part's bytes to \`url\` with \`headers\` (x-amz-checksum-crc32, or x-amz-checksum-sha256); the store refuses a body that does not match. 400 names a part number outside the plan or a malformed checksum. Parts up to ${S3_PART_LIMITS.maxParts.toLocaleString("en")}.`,
    answer: "A link per part.",
  },
});

/** A part arrived whole: its ETag, recorded (and checked where the store can list parts). */
export const reportRestorePart = defineContract({
  id: "reportRestorePart",
  auth: "optional",
  input: z
    .object({
      ...JOB,
      part_number: z
        .number({ error: "must be a part number" })
        .int("must be a whole part number")
        .min(1, "must be at least 1")
        .max(S3_PART_LIMITS.maxParts, `must be at most ${S3_PART_LIMITS.maxParts}`),
      etag: z
        .string({ error: "must be the ETag the part's PUT answered" })
        .min(1, "must not be empty")
        .max(200, "must be at most 200 characters")
        .meta({ description: "The ETag header the part's PUT answered, quotes included." }),
      checksum: z
        .string({ error: "must be the part's base64 checksum" })
        .max(64, "must be the part's base64 checksum")
        .optional()
        .meta({ description: "The checksum the part was sent with (the plan's algorithm)." }),
      sha256: z
        .string({ error: "must be the part's base64 SHA-256" })
        .max(64, "must be the part's base64 SHA-256")
        .optional()
        .meta({
          description:
            "Deprecated: `checksum`, as it was named for uploads whose plan says sha256.",
          deprecated: true,
        }),
      brief: z.boolean({ error: "must be true or false" }).optional().meta({
        description:
          "true: answer the counts only (received_parts, received_bytes), without the list of parts and the list of those missing — what an uploader reporting part after part wants: the lists grow with every part (about 80 bytes a part).",
      }),
    })
    .strict()
    .openapi({
      example: { part_number: 1, etag: '"3610a686"', checksum: "NhCmhg==", brief: true },
    }),
  output: z.object({ job_id: z.string(), upload: UploadReport }),
  errors: [...UPLOAD_ERRORS, "invalid_field", "not_uploaded", "upload_mismatch"],
  examples: {
    ...SAID,
    not_uploaded:
      "Part 3 has not arrived: PUT it to its link, then report it with the ETag the PUT answered.",
  },
  rest: {
    method: "post",
    path: "/cloud/jobs/{id}/upload/arrived",
    names: { job_id: "id" },
    tags: TAGS,
    summary: "Record a part that arrived",
    description:
      "After a part's PUT answered 200: its ETag, so the upload's record (read by a resumer on any machine) holds it. Where the store lists its parts (S3, the local store) the part must be there with that ETag and the plan's size (400 otherwise); reporting a part again records it once. The uploader may skip this where the store lists parts: the state and complete read the store.",
    answer: "The upload's state (with `brief`, its counts only).",
  },
});

/** Which parts arrived and which are missing. */
export const getRestoreUpload = defineContract({
  id: "getRestoreUpload",
  auth: "optional",
  input: z.object(JOB).strict(),
  output: UploadState,
  errors: ["not_found", "wrong_state"],
  examples: {
    not_found: SAID.not_found,
    wrong_state: "This job's file is sent in one PUT to its upload_url, not in parts.",
  },
  rest: {
    method: "get",
    path: "/cloud/jobs/{id}/upload",
    names: { job_id: "id" },
    tags: TAGS,
    summary: "The state of a file sent in parts",
    description:
      "The parts that arrived (number, size, ETag, SHA-256) and the numbers still missing: where a stopped upload resumes, from any machine.",
    answer: "The upload's state.",
  },
});

/** Joins the parts and checks the whole size (start does this too). */
export const completeRestoreUpload = defineContract({
  id: "completeRestoreUpload",
  auth: "optional",
  input: z.object(JOB).strict(),
  output: JobEnvelope,
  errors: [...UPLOAD_ERRORS, "not_uploaded", "upload_mismatch"],
  examples: {
    ...SAID,
    upload_mismatch:
      "The store refused the parts (part 2's ETag differs); read the upload's state and send the parts it lists as missing.",
  },
  rest: {
    method: "post",
    path: "/cloud/jobs/{id}/upload/complete",
    names: { job_id: "id" },
    tags: TAGS,
    summary: "Join the parts of a file sent in parts",
    description:
      "Joins every part into the file and checks its size against the declared one. 400 not_uploaded names the parts still missing (send them, then complete again); 409 already_uploaded once joined. Starting a balance-paid job, or opening the checkout of a card-paid one, completes it too.",
    answer: "The job, its file whole.",
  },
});

/**
 * Over MCP the restore's own read (get_restore) carries its upload in parts: the state, and
 * with `parts` a link per part — no tool of its own (every tool's schema is read into the
 * assistant's context).
 */
export const FollowPartsFields = {
  // Lean on purpose (every tool's schema is read into the assistant's context): the service
  // checks each item, its number and checksum, and the count (400 naming the field).
  parts: z
    .array(z.unknown())
    .optional()
    .meta({ description: "[{part_number, checksum (base64, the plan's algorithm)}] to link." }),
};

/**
 * An upload in parts as get_restore shows it: the counts, and the missing parts as ranges (a
 * 50 GB file in 5 MiB parts is 9,347 numbers; as ranges, "1–9347"). Each arrived part's record
 * is for uploaders (GET /cloud/jobs/{id}/upload), not an assistant's context.
 */
export const FollowUploadState = UploadProgress.omit({ parts: true, missing: true })
  .extend({
    missing_parts: z.string().openapi({
      description:
        'Part numbers still to send, as ranges ("1–3, 7, 9–120"); empty once every part arrived.',
    }),
  })
  .openapi("FollowUploadState");
export type FollowUploadView = z.input<typeof FollowUploadState>;

/** What get_restore adds for a file sent in parts. */
export const FollowPartsOutput = {
  upload: FollowUploadState.optional().openapi({
    description:
      "A file sent in parts: how many parts arrived and which are missing, as ranges (each arrived part's record, ETag and checksum, is for uploaders: GET /cloud/jobs/{id}/upload).",
  }),
  links: z.array(PartTicket).optional().openapi({
    description: "With parts: PUT each part's bytes to its url with its headers.",
  }),
};
