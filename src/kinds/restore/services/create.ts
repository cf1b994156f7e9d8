/**
 * POST /cloud/jobs: price, insert, charge (balance) in one transaction, then an upload link —
 * or, for a `video_url`, no link: a balance-paid job starts at once and its worker fetches the
 * file (a fetch of up to 2 GB must not hold this request open).
 */
import type { Insertable } from "kysely";
import { invalidField, overALimit } from "../../../domain/errors.js";
import { DEFAULT_FADE_HINT, type FadeHint } from "../../../domain/fade.js";
import type { Db } from "../../../jobs/definition.js";
import type { Principal } from "../../../services/auth.js";
import { charge } from "../../../services/ledger.js";
import { freshPrincipal, walletView } from "../../../services/wallets.js";
import { type JobWebhookRequest, saveJobWebhook } from "../../../services/webhooks/job-webhook.js";
import { noteRefusedCharge } from "../../../services/webhooks/wallet-events.js";
import { fadeProblem } from "../rules/fade.js";
import { RESTORE_FETCH, RESTORE_UPLOAD_WINDOW_SEC, type RestoreLimits } from "../rules/limits.js";
import {
  DEFAULT_QUALITY,
  PRICE_TABLE,
  priceRestore,
  type RestoreQuality,
  restoreLimitProblem,
  spokenBytes,
  VIDEO_CONTENT_TYPES,
} from "../rules/pricing.js";
import { restoreInputKey, UNKNOWN_VIDEO_TYPE } from "./definition.js";
import type { RestoreDeps } from "./deps.js";
import { openRestoreUpload, restorePlan, takesParts } from "./parts.js";
import { checkVideoUrl, filenameFromUrl } from "./source-url.js";
import { inTx, type RestoreJobRow } from "./store.js";
import type { RestoreJobsTable } from "./tables.js";
import { jobView } from "./views.js";

interface CreateRestoreInput {
  durationSec: number;
  quality?: RestoreQuality | undefined;
  /** What the customer says of the tape's levels; default auto (the analysis decides). */
  fade?: FadeHint | undefined;
  width?: number | undefined;
  height?: number | undefined;
  /** Required without videoUrl; with it, taken from the URL's path when absent. */
  filename?: string | undefined;
  /** Required without videoUrl; with it, used when the server sends a generic binary type. */
  contentType?: string | undefined;
  /** Required without videoUrl; with it, the fetched file must be exactly this size. */
  sizeBytes?: number | undefined;
  /** A public URL the worker fetches the video from, instead of an upload. */
  videoUrl?: string | undefined;
  email?: string | undefined;
  payWith?: "balance" | "checkout" | undefined;
  /** The job's own webhook, already checked (services/webhooks/job-webhook.ts). */
  webhook?: JobWebhookRequest | undefined;
}

/** Refuses (400, or 422 over a limit) a request past the server's limits, naming the field. */
export function checkRestoreRequest(
  input: {
    durationSec: number;
    width?: number | undefined;
    height?: number | undefined;
    sizeBytes?: number | undefined;
  },
  limits: RestoreLimits,
): void {
  const problem = restoreLimitProblem(input, limits);
  if (problem) throw problem;
}

function checkContentType(contentType: string): string {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  // cast: widens the literal tuple to compare any content type against it
  if (!(VIDEO_CONTENT_TYPES as readonly string[]).includes(type)) {
    throw invalidField(
      "content_type",
      `must be a video type (${VIDEO_CONTENT_TYPES.slice(0, 8).join(", ")}, …); got ${JSON.stringify(contentType.slice(0, 60))}.`,
    );
  }
  return type;
}

interface SourceFile {
  filename: string;
  contentType: string;
  /** Unknown (null) until a video_url is fetched, unless declared. */
  sizeBytes: number | null;
  sourceUrl: string | null;
}

/** The file the job restores: declared for an upload; from a video_url, learned by its fetch. */
async function sourceFile(p: RestoreDeps, input: CreateRestoreInput): Promise<SourceFile> {
  const { filename, contentType, sizeBytes, videoUrl } = input;
  if (videoUrl !== undefined) {
    if (sizeBytes !== undefined && sizeBytes > RESTORE_FETCH.maxBytes) {
      const most = spokenBytes(RESTORE_FETCH.maxBytes);
      throw overALimit(
        "size",
        `a video_url is fetched up to ${most}; upload a larger file instead.`,
      );
    }
    await checkVideoUrl(videoUrl, p.videoFetch);
    return {
      filename: filename ?? filenameFromUrl(videoUrl),
      contentType: contentType === undefined ? UNKNOWN_VIDEO_TYPE : checkContentType(contentType),
      sizeBytes: sizeBytes ?? null,
      sourceUrl: videoUrl,
    };
  }
  const needed = (field: string) =>
    invalidField(field, "is required when no video_url is given (the file is uploaded).");
  if (filename === undefined) throw needed("filename");
  if (contentType === undefined) throw needed("content_type");
  if (sizeBytes === undefined) throw needed("size");
  return { filename, contentType: checkContentType(contentType), sizeBytes, sourceUrl: null };
}

/** What is decided before the transaction: the job's id, price and file, and how it is paid. */
interface NewJob {
  id: string;
  now: Date;
  quality: RestoreQuality;
  amountCents: number;
  file: SourceFile;
  fromBalance: boolean;
  /** Paid and nothing to upload: the job is queued now. */
  startsNow: boolean;
}

/**
 * Prices and creates a restore, charging the balance in the same transaction (or opening it for
 * checkout).
 */
export async function createRestoreJob(
  p: RestoreDeps,
  principal: Principal | undefined,
  input: CreateRestoreInput,
) {
  checkRestoreRequest(input, p.config.restoreLimits);
  const fromBalance = principal !== undefined && input.payWith !== "checkout";
  if (!principal && !input.email) {
    throw invalidField(
      "email",
      "is required without a key (the checkout receipt and the result link go there); or send Authorization: Bearer <key> to pay from the balance.",
    );
  }
  const file = await sourceFile(p, input);
  const quality = input.quality ?? DEFAULT_QUALITY;
  const fade = input.fade ?? DEFAULT_FADE_HINT;
  const fadeRefused = fadeProblem(fade, quality);
  if (fadeRefused) throw invalidField("fade", fadeRefused);
  const amountCents = priceRestore({ ...input, quality }).amountCents;
  const job: NewJob = {
    id: p.ids("rj"),
    now: p.clock(),
    quality,
    amountCents,
    file,
    fromBalance,
    // Paid and nothing to upload: the job is queued now, as clips with an image_url are.
    startsNow: fromBalance && file.sourceUrl !== null,
  };
  const row = await inTx(p.db, async (tx) => {
    // Charge first: it locks the wallet row FOR UPDATE before the insert's foreign-key check
    // takes a share lock on it — the other order deadlocks concurrent creates of one wallet.
    if (fromBalance && principal) await chargeForJob(tx, p, principal, input, job);
    const inserted = await tx
      .insertInto("restore_jobs")
      .values(jobRow(p, principal, input, job))
      .returningAll()
      .executeTakeFirstOrThrow();
    if (input.webhook && principal) {
      await saveJobWebhook(
        tx,
        { id: job.id, walletId: principal.walletId },
        input.webhook,
        job.now,
      );
    }
    return inserted;
  }).catch(async (err) => {
    if (principal) await noteRefusedCharge(p.db, chargeOf(principal, amountCents), err);
    throw err;
  });
  if (job.startsNow) await p.notifyJobs();
  return createdResponse(p, principal, row, fromBalance);
}

/** Charges the job's price to the balance (and the agent key's allowance). */
async function chargeForJob(
  tx: Db,
  p: RestoreDeps,
  principal: Principal,
  input: CreateRestoreInput,
  { id, quality, amountCents }: NewJob,
): Promise<void> {
  await charge(
    tx,
    {
      ...chargeOf(principal, amountCents),
      jobId: id,
      // The quality's label, as the job shows it (quality_label), so the ledger names it alike.
      reason: `restore ${id} (${PRICE_TABLE[quality].label}, ${input.durationSec} s)`,
      keySpentBelowCents: p.jobKinds.cheapestCents(),
    },
    p.events,
  );
}

/** The new job's row: awaiting its upload, its payment, or (startsNow) queued. */
function jobRow(
  p: RestoreDeps,
  principal: Principal | undefined,
  input: CreateRestoreInput,
  { id, now, quality, amountCents, file, fromBalance, startsNow }: NewJob,
): Insertable<RestoreJobsTable> {
  return {
    id,
    wallet_id: principal?.walletId ?? null,
    agent_key_id: principal?.kind === "agent" ? principal.keyId : null,
    email: input.email ?? null,
    status: startsNow ? "processing" : fromBalance ? "awaiting_upload" : "pending_payment",
    quality,
    fade: input.fade ?? DEFAULT_FADE_HINT,
    amount_cents: amountCents,
    declared_amount_cents: amountCents,
    duration_sec: input.durationSec,
    width: input.width ?? null,
    height: input.height ?? null,
    filename: file.filename,
    content_type: file.contentType,
    size_bytes: file.sizeBytes,
    source_url: file.sourceUrl,
    paid_from_balance: fromBalance,
    payment_ref: null,
    max_attempts: p.config.workers.maxAttempts,
    input_key: restoreInputKey(id),
    created_at: now,
    updated_at: now,
    ...(startsNow ? { queued_at: now, progress: 0 } : {}),
    expires_at: new Date(
      now.getTime() +
        (startsNow ? p.config.retentionHours * 3600 : RESTORE_UPLOAD_WINDOW_SEC) * 1000,
    ),
  };
}

const chargeOf = (principal: Principal, amountCents: number) => ({
  walletId: principal.walletId,
  agentKeyId: principal.kind === "agent" ? principal.keyId : null,
  amountCents,
});

async function createdResponse(
  p: RestoreDeps,
  principal: Principal | undefined,
  row: RestoreJobRow,
  fromBalance: boolean,
) {
  // A video_url job's file is fetched by its worker: there is nothing to upload. A large file
  // goes in parts (an upload plan), a small one in one PUT to upload_url.
  const uploaded = row.source_url === null;
  const parts = uploaded && takesParts(p, Number(row.size_bytes));
  if (parts) {
    // Opened now so the first part link is quick; should the store be away, the first request
    // for links opens it (the plan does not change).
    await openRestoreUpload(p, row).catch((err: unknown) => {
      p.log.warn("could not open the upload in parts at create; it opens on first use", {
        job: row.id,
        err,
      });
    });
  }
  const ticket =
    uploaded && !parts
      ? await p.storage.presignUpload(row.input_key, {
          contentType: row.content_type,
          sizeBytes: Number(row.size_bytes),
          expiresInSec: RESTORE_UPLOAD_WINDOW_SEC,
        })
      : null;
  const job = await jobView(p, row);
  return {
    job,
    ...(ticket
      ? {
          upload_url: ticket.url,
          upload_headers: ticket.headers,
          upload_expires_at: ticket.expiresAt.toISOString(),
        }
      : {}),
    ...(parts ? { upload: restorePlan(p, row) } : {}),
    display_price: job.display_price,
    paid_from_balance: fromBalance,
    ...(principal ? { wallet: await walletView(p, freshPrincipal(principal)) } : {}),
  };
}
