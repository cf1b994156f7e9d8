/** The restore operations' handlers: each maps its input onto one service call. */

import { type CallContext, implement, type Operation } from "../../api/operation.js";
import { PART_CHECKSUM_HOW } from "../../domain/uploads.js";
import { waitOptions } from "../../operations/wait.js";
import { openRestoreCheckout } from "../../services/payments/checkouts.js";
import type { PaymentsDeps, PaymentsPlatform } from "../../services/payments/deps.js";
import { checkJobWebhook, receiverPolicy } from "../../services/webhooks/job-webhook.js";
import * as c from "./api/contracts.js";
import * as uc from "./api/upload-contracts.js";
import { priceTableView } from "./rules/pricing.js";
import { cancelRestoreJob } from "./services/cancel.js";
import {
  getOwnedRestoreJob,
  getRestoreJob,
  ownedJob,
  startRestoreJob,
} from "./services/commands.js";
import { createRestoreJob } from "./services/create.js";
import type { RestoreDeps } from "./services/deps.js";
import { listRestoreJobs } from "./services/list.js";
import { followParts } from "./services/parts.js";
import { picturesOperation } from "./services/pictures.js";
import { quoteRestore as priceRestore } from "./services/quote.js";
import { RESTORE_UPLOAD_OPERATIONS } from "./services/upload-operations.js";

const prices = implement(c.getRestorePrices, async (p: RestoreDeps) =>
  priceTableView(p.config.restoreLimits),
);

const quote = implement(c.quoteRestore, async (p: RestoreDeps, a) =>
  priceRestore(p.config.restoreLimits, {
    durationSec: a.duration_sec,
    quality: a.quality,
    width: a.width,
    height: a.height,
  }),
);

const create = implement(c.createRestore, async (p: RestoreDeps, a, ctx) => {
  const created = await createRestoreJob(p, ctx.principal, {
    durationSec: a.duration_sec,
    quality: a.quality,
    fade: a.fade,
    width: a.width,
    height: a.height,
    filename: a.filename,
    contentType: a.content_type,
    sizeBytes: a.size,
    videoUrl: a.video_url,
    email: a.email,
    payWith: a.pay_with,
    webhook: await checkJobWebhook(receiverPolicy(p.config), ctx.principal, a),
  });
  return { ...created, next: nextStep(created, ctx) };
});

/** What the caller does after creating: upload and start, pay, or (a video_url) only follow. */
function nextStep(
  created: {
    job: { id: string; size: number; video_url: string | null };
    paid_from_balance: boolean;
    upload?: { part_count: number; part_size_bytes: number };
  },
  ctx: CallContext,
): string {
  const job = { job_id: created.job.id };
  const follow = `Then call ${ctx.refer([c.getRestore, c.followRestore], job)} until status is done, and download download_url.`;
  const pay = `call ${ctx.refer([c.createRestoreCheckout, c.startOrPayRestore], job)} and give the checkout_url to the person paying`;
  if (created.job.video_url !== null) {
    const fetched =
      "the server fetches the video from video_url and restores it (a failed fetch ends the job failed, error_code video_fetch_failed, and refunded)";
    return created.paid_from_balance
      ? `Nothing to upload or start: ${fetched}. ${follow}`
      : `Nothing to upload: ${pay}; once paid, ${fetched}. ${follow}`;
  }
  const upload = created.upload
    ? inParts(created.upload, created.job.size, job, ctx)
    : `PUT the file (exactly ${created.job.size} bytes) to upload_url with upload_headers within 24 hours`;
  return created.paid_from_balance
    ? `${upload}, then call ${ctx.refer([c.startRestore, c.startOrPayRestore], job)} with the same key. ${follow}`
    : `${upload}, then ${pay}; the restore starts once paid. ${follow}`;
}

/** How to send a file in parts, naming the caller's calls. */
function inParts(
  plan: { part_count: number; part_size_bytes: number },
  size: number,
  job: { job_id: string },
  ctx: CallContext,
): string {
  const links = ctx.refer([uc.getRestorePartLinks, c.followRestore], job);
  const state = ctx.refer([uc.getRestoreUpload, c.followRestore], job);
  return `Send the file (${size} bytes) in ${plan.part_count} parts of ${plan.part_size_bytes} bytes (the last is the rest) within 24 hours: for each part compute its checksum as the plan's \`checksum\` says (${PART_CHECKSUM_HOW}), get its link with ${links} (parts: [{part_number, checksum}], up to 1000 at once) and PUT exactly its bytes to the link's url with the link's headers — parts may go several at once and in any order, and a part that fails is sent again. If it stopped halfway, ${state} lists the parts that arrived: send only the missing ones. A public video_url (up to 2 GB) avoids uploading at all. When every part is there`;
}

const list = implement(c.listRestores, async (p: RestoreDeps, a, ctx) =>
  listRestoreJobs(p, ctx.principal, a),
);

const read = implement(c.getRestore, async (p: RestoreDeps, a, ctx) =>
  getRestoreJob(p, a.job_id, waitOptions(a, ctx)),
);

const follow = implement(c.followRestore, async (p: RestoreDeps, a, ctx) => {
  const read = await getOwnedRestoreJob(p, ctx.principal, a.job_id, waitOptions(a, ctx));
  // A file sent in parts: its upload's state, and links for the parts asked for.
  return { ...read, ...(await followParts(p, ctx.principal, a.job_id, a.parts)) };
});

const start = implement(c.startRestore, async (p: RestoreDeps, a, ctx) =>
  startRestoreJob(p, ctx.principal, a.job_id),
);

const cancel = implement(c.cancelRestore, async (p: RestoreDeps, a, ctx) =>
  cancelRestoreJob(p, ctx.principal, a.job_id),
);

/** The restore operations the restore feature serves, not yet bound to their services. */
export const RESTORE_OPERATIONS = [
  prices,
  quote,
  create,
  list,
  read,
  follow,
  start,
  cancel,
  picturesOperation,
  ...RESTORE_UPLOAD_OPERATIONS,
];

/** The restore area's operations, bound to its dependencies. */
export function restoreOperations(p: RestoreDeps): Operation[] {
  return RESTORE_OPERATIONS.map((bind) => bind(p));
}

/** The payment services over a platform that runs restores too: what the checkout moves. */
type RestorePayments = PaymentsDeps<PaymentsPlatform & RestoreDeps>;

const checkout = implement(c.createRestoreCheckout, async (deps: RestorePayments, a) => {
  const opened = await openRestoreCheckout(deps, a.job_id);
  const { job } = await getRestoreJob(deps.platform, a.job_id);
  return { checkout_url: opened.checkout_url, job };
});

const startOrPay = implement(c.startOrPayRestore, async (deps: RestorePayments, a, ctx) => {
  const row = await ownedJob(deps.platform, ctx.principal, a.job_id);
  if (row.status !== "pending_payment")
    return startRestoreJob(deps.platform, ctx.principal, a.job_id);
  const opened = await openRestoreCheckout(deps, a.job_id);
  const { job } = await getOwnedRestoreJob(deps.platform, ctx.principal, a.job_id);
  return { job, checkout_url: opened.checkout_url };
});

/** Paying a restore per job by checkout, not yet bound to the payment services. */
export const RESTORE_CHECKOUT_OPERATIONS = [checkout, startOrPay];

/** Paying a restore per job by checkout: served by the payments feature, which owns checkouts. */
export function restoreCheckoutOperations(deps: RestorePayments): Operation[] {
  return RESTORE_CHECKOUT_OPERATIONS.map((bind) => bind(deps));
}
