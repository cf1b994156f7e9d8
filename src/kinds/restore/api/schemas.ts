/** The restore contract shared by REST and MCP: requests, jobs, quotes. */
import { z } from "@hono/zod-openapi";
import { Email, FadeField, FadeView, QueueEstimate, Wallet } from "../../../api/schemas.js";
import { clockLength, MaxPriceFields, type SpendQuote } from "../../../api/spend.js";
import { UploadPlan, UploadSummary } from "../../../api/uploads.js";
import { JobWebhook, JobWebhookFields } from "../../../api/webhooks.js";
import { displayCents } from "../../../domain/money.js";
import {
  RESTORE_LIMIT_CEILINGS,
  RESTORE_MAX_FRAME_RATE,
  RESTORE_MIN_VIDEO_SEC,
} from "../rules/limits.js";
import {
  DEFAULT_QUALITY,
  PRICE_TABLE,
  priceRestore,
  RESTORE_LIMITS,
  RESTORE_QUALITIES,
  restoreLimitProblem,
} from "../rules/pricing.js";
import { QUALITY_CHOICES, qualityFromName } from "../rules/quality-names.js";
import { RESTORE_STATUSES } from "../rules/transitions.js";

const num = (what: string) => z.number({ error: `must be ${what}` });
const int = (what: string) => z.number({ error: `must be ${what}` }).int(`must be ${what}`);

// The schema holds the ceilings; the server's own limits (operator settings, in GET /cloud/prices)
// are checked by the services.
const L = { ...RESTORE_LIMITS, ...RESTORE_LIMIT_CEILINGS };

/** What each quality does and costs, as every surface describes the `quality` field. */
const QUALITY_MEANING = RESTORE_QUALITIES.map((q) => {
  const row = PRICE_TABLE[q];
  return `${q} = ${row.label}, from ${displayCents(row.baseCents)}: ${row.brief}.`;
}).join(" ");

const RestoreRequestFields = {
  duration_sec: num("a number of seconds").openapi({ example: 95 }).meta({
    description:
      "Seconds; sets the price. Measured: much longer is refused, refunded. Up to 6 h by default (get_prices).",
    exclusiveMinimum: 0,
    maximum: L.maxDurationSec,
  }),
  // One reading of the quality for REST, MCP and the OpenAPI document: the API name or the
  // display label, any case and spacing ("Studio Max", "studio-max" → enhanced_max). The
  // documents list the API names (what is answered back); `default` is in the schema itself,
  // not only in prose, so a tool listing shows it.
  quality: z.preprocess(
    (value) => (typeof value === "string" ? (qualityFromName(value) ?? value) : value),
    z
      .enum(RESTORE_QUALITIES, { error: `must be ${QUALITY_CHOICES}` })
      .optional()
      .meta({
        description: `${QUALITY_MEANING} Display names work too.`,
        default: DEFAULT_QUALITY,
      }),
  ),
  width: int("an integer number of pixels").optional().openapi({ example: 720 }).meta({
    description: "Pixels; above 1920×1080 the price is ×1.5.",
    minimum: 1,
    maximum: L.maxWidth,
  }),
  height: int("an integer number of pixels").optional().openapi({ example: 576 }).meta({
    description: "Pixels.",
    minimum: 1,
    maximum: L.maxHeight,
  }),
};

/** What a restore quote takes: length, quality and picture size. */
export const QuoteBody = z
  .object(RestoreRequestFields)
  .strict()
  .openapi("RestoreRequest", { example: { duration_sec: 95, quality: "enhanced" } });

/**
 * What creating a restore takes: the quote's fields, the file (or a video_url), how it is paid, a
 * webhook.
 */
export const CreateBody = z
  .object({
    ...RestoreRequestFields,
    filename: z
      .string({ error: "must be the file's name" })
      .min(1, "must not be empty")
      .max(L.filenameMaxLength, `must be at most ${L.filenameMaxLength} characters`)
      .optional()
      .meta({
        description: "Names the result. Required without video_url (else taken from its path).",
      }),
    content_type: z
      .string({ error: "must be the file's video type, e.g. video/mp4" })
      .min(1, "must not be empty")
      .max(255, "must be at most 255 characters")
      .optional()
      .meta({
        description:
          "The video's type, e.g. video/mp4; the upload must carry it. Required without video_url.",
      }),
    size: int("the file size in bytes, an integer").optional().meta({
      description:
        "Exact bytes (up to 50 GiB by default); the upload must match. Required without video_url.",
      minimum: 1,
      maximum: L.maxSizeBytes,
    }),
    video_url: z
      .string({ error: "must be a public http(s) URL of the video" })
      .min(1, "must not be empty")
      .max(2048, "must be at most 2048 characters")
      .optional()
      .meta({
        description:
          "A public http(s) URL instead of an upload (up to 2 GB): the job starts on its own; a failed fetch fails it (video_fetch_failed), refunded.",
      }),
    email: Email.optional().meta({
      description: "For receipts; required without a key (then paid by checkout).",
    }),
    fade: FadeField,
    pay_with: z
      .enum(["balance", "checkout"], { error: "must be balance or checkout" })
      .optional()
      .meta({
        description:
          "balance: charged to the balance now. checkout: the owner pays this one job by card, by a link.",
        default: "balance",
      }),
    ...JobWebhookFields,
    ...MaxPriceFields,
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

/** A restore job as every surface shows it. */
export const RestoreJob = z
  .object({
    id: z.string().openapi({ example: "rj_5pX0c1Hq3GvJ2Yb8Lw9RzA" }),
    status: z.enum(RESTORE_STATUSES),
    quality: z.enum(RESTORE_QUALITIES),
    quality_label: z.string().openapi({ example: "Enhanced" }),
    fade: FadeView,
    amount_cents: z.number().int().openapi({
      description:
        "What the job costs: the declared length's price, lowered to the measured length's once measured (never raised).",
    }),
    display_price: z.string().openapi({ example: "$4.99" }),
    declared_amount_cents: z.number().int().openapi({
      description:
        "What was charged at creation, for the declared length; the difference to amount_cents went back when the length was measured.",
    }),
    duration_sec: z.number(),
    measured_duration_sec: z.number().nullable().openapi({
      description: "The real length, measured before the restore runs; null until then.",
    }),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    filename: z.string(),
    content_type: z.string(),
    size: z
      .number()
      .int()
      .openapi({ description: "Bytes; 0 until a video_url is fetched (unless declared)." }),
    video_url: z.string().nullable().openapi({
      description: "The URL the video is fetched from; null when it is uploaded.",
    }),
    paid_from_balance: z.boolean(),
    progress: z.number().nullable().openapi({ description: "0..1 while processing." }),
    download_url: z
      .string()
      .nullable()
      .openapi({ description: "Set once done; valid 1 hour, fresh on every GET." }),
    error: z.string().nullable(),
    error_code: z
      .string()
      .nullable()
      .openapi({
        description: `Why it failed or was refunded, when the cause is the caller's: video_fetch_failed, too_long, corrupt (unreadable, cut off, or a picture that does not decode), no_video (sound only, or no picture), still_image (a photo, or a single frame), too_short (under ${RESTORE_MIN_VIDEO_SEC} s) or unsupported (a format it cannot read, or over ${RESTORE_MAX_FRAME_RATE} frames a second); null otherwise. \`error\` says the same in a sentence.`,
      }),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
    expires_at: z.string().openapi({
      description: "Upload deadline before start; when the files are deleted after it.",
    }),
    queue: QueueEstimate.nullable().openapi({
      description:
        "While processing: queue.state says whether it still waits for a worker (queued, with its position) or a worker runs it (running, position 0), and the estimated time to done; null in every other status.",
    }),
    webhook: JobWebhook.nullable().optional().openapi({
      description: "The job's own webhook_url, its events and latest deliveries; null without one.",
    }),
    upload: UploadSummary.nullable().optional().openapi({
      description:
        "A file sent in parts: how many parts and bytes arrived (null for one upload_url or a video_url).",
    }),
    segments: z
      .object({ done: z.number().int(), running: z.number().int(), waiting: z.number().int() })
      .nullable()
      .optional()
      .openapi({
        description:
          "A long video restored in segments across workers: how many are done, running and waiting; null for one piece (or before its analysis).",
      }),
  })
  .openapi("RestoreJob");

/** The answer of a read, start or cancel of one restore job. */
export const JobEnvelope = z.object({ job: RestoreJob });

/** A restore's price for a length, quality and size. */
export const Quote = z.object({
  amount_cents: z.number().int().openapi({ example: 499 }),
  display: z.string().openapi({ example: "$4.99" }),
  quality: z.string(),
  quality_label: z.string(),
  duration_sec: z.number(),
  extra_minutes: z.number().int(),
  high_res: z.boolean(),
  limits: z
    .object({
      max_duration_sec: z.number().int(),
      max_width: z.number().int(),
      max_height: z.number().int(),
      max_size_bytes: z.number().int(),
      summary: z.string().openapi({ example: "Videos up to 6 hours and 50 GiB, up to 7680×4320." }),
    })
    .openapi({ description: "What this server takes: a longer or larger video is refused." }),
});

/** The answer to a create: the job, where to upload its file, the price and what to do next. */
export const CreatedRestore = z.object({
  job: RestoreJob,
  upload_url: z.string().optional().openapi({
    description:
      "Where to PUT the file; absent with video_url (the server fetches it) and for a file sent in parts (see upload).",
  }),
  upload_headers: z.record(z.string(), z.string()).optional(),
  upload_expires_at: z.string().optional(),
  upload: UploadPlan.optional().openapi({
    description:
      "For a file larger than the server's single-upload size (UPLOAD_SINGLE_MAX_BYTES, 256 MiB by default), instead of upload_url: send it in parts, then start.",
  }),
  display_price: z.string().openapi({ example: "$4.99" }),
  paid_from_balance: z.boolean(),
  next: z.string().openapi({ description: "Exactly what to do next." }),
  wallet: Wallet.optional(),
});

/** The restore price table (kinds/restore/rules/pricing.ts priceTableView). */
export const PriceTable = z.object({}).passthrough().openapi({
  description:
    "Base price per quality (up to 5 minutes), the per-minute price after it, the high-resolution factor and the limits.",
});

/** A restore job as every surface shows it. */
export type RestoreJobView = z.input<typeof RestoreJob>;

/**
 * What creating this restore takes from the balance (nothing when paid by checkout), and what
 * it buys in the owner's words: "Restore wedding.mp4, 1:35, Enhanced".
 */
export function restoreSpend(input: z.output<typeof CreateBody>): SpendQuote | null {
  if (input.pay_with === "checkout") return null;
  // A video over a limit has no price: say which limit, as the handler would, rather than
  // compare an absurd figure (2^53 seconds) with max_price_cents.
  const problem = restoreLimitProblem(
    {
      durationSec: input.duration_sec,
      width: input.width,
      height: input.height,
      sizeBytes: input.size,
    },
    RESTORE_LIMIT_CEILINGS,
  );
  if (problem) throw problem;
  const price = priceRestore({
    durationSec: input.duration_sec,
    quality: input.quality ?? DEFAULT_QUALITY,
    width: input.width,
    height: input.height,
  });
  const name = input.filename ?? input.video_url ?? "a video";
  return {
    cents: price.amountCents,
    what: `Restore ${name}, ${clockLength(input.duration_sec)}, ${price.label}`,
  };
}
