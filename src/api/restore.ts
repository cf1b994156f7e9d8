/** The restore contract shared by REST and MCP: requests, jobs, quotes. */
import { z } from "@hono/zod-openapi";
import { RESTORE_LIMITS, RESTORE_QUALITIES } from "../domain/restore/pricing.js";
import { RESTORE_STATUSES } from "../domain/restore/transitions.js";
import { Email, QueueEstimate, Wallet } from "./schemas.js";

const num = (what: string) => z.number({ error: `must be ${what}` });
const int = (what: string) => z.number({ error: `must be ${what}` }).int(`must be ${what}`);

export const RestoreRequestFields = {
  duration_sec: num("a number of seconds").openapi({
    description: `Declared length of the video, above 0 and at most ${RESTORE_LIMITS.maxDurationSec}.`,
    example: 95,
  }),
  quality: z
    .enum(RESTORE_QUALITIES, { error: "must be faithful, enhanced or enhanced_max" })
    .optional()
    .openapi({
      description: "faithful (Standard), enhanced (default) or enhanced_max (Studio Max).",
    }),
  width: int("an integer number of pixels").optional().openapi({ example: 720 }),
  height: int("an integer number of pixels").optional().openapi({ example: 576 }),
};

export const QuoteBody = z
  .object(RestoreRequestFields)
  .strict()
  .openapi("RestoreRequest", { example: { duration_sec: 95, quality: "enhanced" } });

export const CreateBody = z
  .object({
    ...RestoreRequestFields,
    filename: z
      .string({ error: "must be the file's name" })
      .min(1, "must not be empty")
      .max(
        RESTORE_LIMITS.filenameMaxLength,
        `must be at most ${RESTORE_LIMITS.filenameMaxLength} characters`,
      ),
    content_type: z
      .string({ error: "must be the file's video type, e.g. video/mp4" })
      .min(1, "must not be empty")
      .max(255, "must be at most 255 characters"),
    size: int("the file size in bytes, an integer"),
    email: Email.optional(),
    pay_with: z.enum(["balance", "checkout"], { error: "must be balance or checkout" }).optional(),
  })
  .strict()
  .openapi("CreateRestoreRequest", {
    example: {
      duration_sec: 95,
      quality: "enhanced",
      filename: "wedding-1994.mp4",
      content_type: "video/mp4",
      size: 48_000_000,
    },
  });

export const RestoreJob = z
  .object({
    id: z.string().openapi({ example: "rj_5pX0c1Hq3GvJ2Yb8Lw9RzA" }),
    status: z.enum(RESTORE_STATUSES),
    quality: z.enum(RESTORE_QUALITIES),
    quality_label: z.string().openapi({ example: "Enhanced" }),
    amount_cents: z.number().int(),
    display_price: z.string().openapi({ example: "$4.99" }),
    duration_sec: z.number(),
    measured_duration_sec: z.number().nullable(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    filename: z.string(),
    content_type: z.string(),
    size: z.number().int(),
    paid_from_balance: z.boolean(),
    progress: z.number().nullable().openapi({ description: "0..1 while processing." }),
    download_url: z
      .string()
      .nullable()
      .openapi({ description: "Set once done; valid 1 hour, fresh on every GET." }),
    error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
    expires_at: z.string().openapi({
      description: "Upload deadline before start; when the files are deleted after it.",
    }),
    queue: QueueEstimate.nullable().openapi({
      description:
        "While processing: queue position and estimated time to done (position 0 once a worker runs it); null in every other status.",
    }),
  })
  .openapi("RestoreJob");

export const JobEnvelope = z.object({ job: RestoreJob });

export const Quote = z.object({
  amount_cents: z.number().int().openapi({ example: 499 }),
  display: z.string().openapi({ example: "$4.99" }),
  quality: z.string(),
  quality_label: z.string(),
  duration_sec: z.number(),
  extra_minutes: z.number().int(),
  high_res: z.boolean(),
});

export const CreatedRestore = z.object({
  job: RestoreJob,
  upload_url: z.string(),
  upload_headers: z.record(z.string(), z.string()),
  upload_expires_at: z.string(),
  display_price: z.string().openapi({ example: "$4.99" }),
  paid_from_balance: z.boolean(),
  next: z.string().openapi({ description: "Exactly what to do next." }),
  wallet: Wallet.optional(),
});

/** The restore price table (domain/restore/pricing.ts priceTableView). */
export const PriceTable = z.object({}).passthrough().openapi({
  description:
    "Base price per quality (up to 5 minutes), the per-minute price after it, the high-resolution factor and the limits.",
});

/** A restore job as every surface shows it. */
export type RestoreJobView = z.input<typeof RestoreJob>;
