/**
 * What the payments side needs from restore jobs to sell a checkout for one: read the job
 * (price, e-mail, whether the file arrived) and mark it paid. Card refunds of checkout-paid
 * jobs that later fail go through the `restore_card_refunds` outbox (written by store.ts).
 */
import { ApiError, notFound } from "../../../domain/errors.js";
import { displayCents } from "../../../domain/money.js";
import type { RestoreDeps } from "./deps.js";
import { settleRestoreUpload } from "./parts.js";
import { findJob, inTx, moveRestore, type RestoreJobRow, refundRestore } from "./store.js";
import { uploadProblem } from "./upload-check.js";

interface CheckoutJob {
  id: string;
  status: RestoreJobRow["status"];
  amountCents: number;
  email: string | null;
  /** The price as shown, e.g. "$4.99". */
  display: string;
  /** Quality label and filename, for the checkout line item. */
  description: string;
  /** The file is there — or, for a video_url job, will be fetched once paid. */
  uploaded: boolean;
  /** Why the upload is not usable yet (missing, wrong size or type); absent when uploaded. */
  uploadProblem?: ApiError;
}

/** The restore a checkout is for, as the payment services need it. */
export async function getJobForCheckout(p: RestoreDeps, jobId: string): Promise<CheckoutJob> {
  const row = await findJob(p.db, jobId);
  if (!row) throw notFound("Restore job");
  // A video_url job is fetched after payment: there is no upload to check before it.
  const awaitsUpload = row.status === "pending_payment" && row.source_url === null;
  const problem = awaitsUpload ? await settledUploadProblem(p, row) : null;
  const amountCents = Number(row.amount_cents);
  return {
    id: row.id,
    status: row.status,
    amountCents,
    email: row.email,
    display: displayCents(amountCents),
    description: `Video restore (${row.quality}) of ${row.filename}`,
    uploaded: problem === null,
    ...(problem ? { uploadProblem: problem } : {}),
  };
}

/** A file sent in parts is joined before the checkout opens; what is wrong with the upload. */
async function settledUploadProblem(p: RestoreDeps, row: RestoreJobRow): Promise<ApiError | null> {
  try {
    await settleRestoreUpload(p, row);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  return uploadProblem(p.storage, row);
}

/**
 * pending_payment → processing, recording the payment reference; a repeated call (webhook
 * retry) is a no-op returning the job. A payment that lands on a job the sweeper already
 * expired is queued for a card refund instead.
 */
export async function markCheckoutPaid(
  p: RestoreDeps,
  jobId: string,
  opts: { paymentRef: string },
): Promise<RestoreJobRow> {
  const now = p.clock();
  const moved = await moveRestore(p.db, jobId, "pay", now, {
    payment_ref: opts.paymentRef,
    queued_at: now,
    progress: 0,
    expires_at: new Date(now.getTime() + p.config.retentionHours * 3600_000),
  });
  if (moved) {
    await p.notifyJobs();
    return moved;
  }
  const row = await findJob(p.db, jobId);
  if (!row) throw notFound("Restore job");
  if (row.status === "expired" && row.payment_ref === null) {
    return inTx(p.db, async (tx) => {
      const paid = await tx
        .updateTable("restore_jobs")
        .set({ payment_ref: opts.paymentRef, updated_at: now })
        .where("id", "=", jobId)
        .where("payment_ref", "is", null)
        .returningAll()
        .executeTakeFirst();
      if (paid) {
        await refundRestore(tx, paid, `restore ${jobId} paid after it expired`, p.events);
      }
      return paid ?? row;
    });
  }
  return row;
}
