/**
 * Cancelling a restore by its owner: before it starts (balance-paid, file or not) or while it
 * waits for or is held by workers (paid from the balance or by card). The price goes back once
 * — the move and its refund are one conditional update, so a cancel racing the worker's finish,
 * a failure's refund or another cancel has one winner — to where it came from: the balance and
 * the key's allowance, or the card through the card-refund outbox, as a failed job's is. A
 * running worker sees its lease gone at its next heartbeat and stops its ffmpeg; a segmented
 * restore's units are stopped; every file of the job is deleted.
 */
import { ApiError, wrongState } from "../../../domain/errors.js";
import { stopChildUnits } from "../../../jobs/children.js";
import type { Principal } from "../../../services/auth.js";
import { freshPrincipal, walletView } from "../../../services/wallets.js";
import { RESTORE_MESSAGES } from "../rules/transitions.js";
import { ownedJob } from "./commands.js";
import { RESTORE_SEGMENT_KIND, restoreJobs } from "./definition.js";
import type { RestoreDeps } from "./deps.js";
import { abortRestoreUpload } from "./parts.js";
import { moveRestore, type RestoreJobRow } from "./store.js";
import { jobView } from "./views.js";

/** Statuses in which workers (or a segmented job's units) may hold or wait for the job. */
const RUNNING = new Set<RestoreJobRow["status"]>(["queued", "processing"]);

function notCancellable(row: RestoreJobRow): ApiError {
  if (row.status === "pending_payment" || (!row.paid_from_balance && row.payment_ref === null)) {
    return new ApiError(
      "paid_by_checkout",
      "Only paid jobs can be cancelled; an unpaid checkout job simply expires.",
    );
  }
  return wrongState(`The job is ${row.status}: only a job not yet ended can be cancelled.`);
}

/** The move that cancels `row` now, or undefined when it cannot be cancelled. */
function cancelMove(row: RestoreJobRow) {
  if (row.status === "awaiting_upload" && row.paid_from_balance) {
    return { move: "cancel" as const, error: RESTORE_MESSAGES.cancelled };
  }
  const paid = row.paid_from_balance || row.payment_ref !== null;
  if (RUNNING.has(row.status) && paid) {
    return { move: "cancelRunning" as const, error: RESTORE_MESSAGES.cancelledRunning };
  }
  return undefined;
}

/**
 * Cancels the caller's restore and gives the price back at once; cancelling a cancelled job
 * returns it unchanged (a retried request, or the loser of two cancels). An ended job is 409.
 */
export async function cancelRestoreJob(p: RestoreDeps, principal: Principal, id: string) {
  const row = await ownedJob(p, principal, id);
  if (row.status === "cancelled") return cancelled(p, principal, row);
  const how = cancelMove(row);
  if (!how) throw notCancellable(row);
  const now = p.clock();
  const moved = await moveRestore(
    p.db,
    id,
    how.move,
    now,
    // The lease goes with the job: its worker's next heartbeat is refused and it stops.
    { error: how.error, finished_at: now, lease_owner: null, lease_expires_at: null },
    { refundReason: `restore ${id} cancelled`, events: p.events },
  );
  const latest = moved ?? (await ownedJob(p, principal, id));
  if (latest.status !== "cancelled") throw notCancellable(latest);
  return cancelled(p, principal, latest);
}

/**
 * Nothing of a cancelled job stays: parts sent so far go with the upload (a part still arriving
 * is refused: its job no longer waits), a segmented job's units stop and their files go, and
 * every file of the job is deleted. Run by every cancel that finds it cancelled, so a retry
 * finishes what a crash left; the ended jobs' retention sweep is the backstop.
 */
async function clearCancelled(p: RestoreDeps, row: RestoreJobRow): Promise<void> {
  await abortRestoreUpload(p, row, "cancelled").catch((err: unknown) =>
    p.log.warn("aborting a cancelled job's upload in parts failed; the sweep retries", {
      job: row.id,
      err,
    }),
  );
  await stopChildUnits(p, p.jobKinds.all(), RESTORE_SEGMENT_KIND, row.id).catch((err: unknown) =>
    p.log.warn("stopping a cancelled job's segments failed; the orphan pass retries", {
      job: row.id,
      err,
    }),
  );
  for (const key of restoreJobs.files(row)) await p.storage.delete(key).catch(() => {});
}

async function cancelled(p: RestoreDeps, principal: Principal, row: RestoreJobRow) {
  await clearCancelled(p, row);
  return { job: await jobView(p, row), wallet: await walletView(p, freshPrincipal(principal)) };
}
