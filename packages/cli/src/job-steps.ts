/**
 * The steps restore, clip and get share, each with its progress bar: upload a file, follow a
 * job to its end, download the result, and cancel a job after Ctrl-C.
 */
import path from "node:path";
import type { ClientContext } from "./command.js";
import { downloadFile } from "./download.js";
import { isAbort } from "./failures.js";
import { FOLLOW_WAIT_SEC, followJob } from "./follow.js";
import { dollars, formatBytes } from "./format.js";
import {
  type AnyJob,
  isQueued,
  type JobKind,
  paidByCheckout,
  queueText,
  readJob,
  statusText,
} from "./job-kinds.js";
import { byteProgress, etaText, jobProgress, type ProgressBar } from "./progress.js";
import { uploadFile } from "./upload.js";

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Uploads with a bar (bytes, rate, ETA) and retries; resolves with the attempts made. */
export async function uploadStep(
  ctx: ClientContext,
  opts: { url: string; headers: Record<string, string>; file: string; sizeBytes: number },
): Promise<number> {
  const { out } = ctx;
  const label = "upload  ";
  out.note(`Uploading ${path.basename(opts.file)} (${formatBytes(opts.sizeBytes)})…`);
  let bar = byteProgress(out, label, opts.sizeBytes);
  const startedAt = Date.now();
  try {
    const { attempts } = await uploadFile(ctx.api.kinora, {
      ...opts,
      signal: ctx.signal,
      onProgress: (bytes) => bar.update(bytes),
      onRetry: (attempt, delayMs, reason) => {
        bar.stop();
        out.note(
          `The upload broke off (${reason}); sending it again in ${seconds(delayMs)} (attempt ${attempt + 1}).`,
        );
        bar = byteProgress(out, label, opts.sizeBytes);
      },
    });
    bar.stop();
    out.note(`Uploaded in ${seconds(Date.now() - startedAt)}.`);
    return attempts;
  } catch (err) {
    bar.stop();
    throw err;
  }
}

/** Follows the job to a terminal status with a bar from its `progress`. */
export async function followStep<J extends AnyJob>(
  ctx: ClientContext,
  kind: JobKind<J>,
  id: string,
): Promise<J> {
  const { out } = ctx;
  const bar = jobProgress(out, kind.name.padEnd(8));
  let lastStatus = "";
  /** When the server's last estimate runs out (the bar counts down to it). */
  let estimateEndsAt: number | null = null;
  try {
    const job = await followJob({
      read: (waitSec) => readJob(ctx.api, kind, id, refreshWithin(waitSec, estimateEndsAt)),
      state: (j) => ({ status: j.status, progress: j.progress ?? null }),
      terminal: kind.terminal,
      signal: ctx.signal,
      waitSec: FOLLOW_WAIT_SEC,
      onRead: (j) => {
        const { where, etaSeconds } = queueText(j);
        // A started restore is `processing` while it waits its turn: statusText says waiting.
        const now = statusText(j);
        const status = where ? `${now}, ${where}` : now;
        const progress = isQueued(j) ? 0 : (j.progress ?? 0);
        bar.update(j.status === "done" ? 1 : progress, status, etaSeconds);
        estimateEndsAt = etaSeconds === null ? null : Date.now() + etaSeconds * 1000;
      },
      onUpdate: (j) => {
        // A log gets a line per status, with the server's queue place and estimate.
        if (!out.interactive && j.status !== lastStatus) out.note(`${id}: ${followLine(j)}`);
        lastStatus = j.status;
      },
      onRetry: (_attempt, delayMs, reason) => {
        if (!out.interactive)
          out.note(`Lost touch with the server (${reason}); retrying in ${seconds(delayMs)}.`);
      },
    });
    bar.stop();
    return job;
  } catch (err) {
    bar.stop();
    throw err;
  }
}

/**
 * The long poll to ask for: the follow's own, but ending a second before the server's last
 * estimate runs out, so the bar's countdown is re-based on a fresh estimate instead of
 * reaching zero while the job still waits behind a busy worker.
 */
export function refreshWithin(waitSec: number, estimateEndsAt: number | null): number {
  if (waitSec <= 0 || estimateEndsAt === null) return waitSec;
  const left = Math.floor((estimateEndsAt - Date.now()) / 1000) - 1;
  return Math.max(1, Math.min(waitSec, left));
}

/** A job's status with its queue place and the server's estimate, for a log line. */
export function followLine(job: AnyJob): string {
  const { where, etaSeconds } = queueText(job);
  const extra = [where, etaSeconds === null ? "" : etaText(etaSeconds)].filter(Boolean);
  const now = statusText(job);
  return extra.length > 0 ? `${now} (${extra.join(", ")})` : now;
}

/** Downloads a result with a bar (drawn once the size is known); resolves with its size. */
export async function downloadStep(ctx: ClientContext, url: string, dest: string): Promise<number> {
  const { out } = ctx;
  out.note(`Downloading to ${dest}…`);
  let bar: ProgressBar | undefined;
  try {
    const { sizeBytes } = await downloadFile({
      url,
      dest,
      signal: ctx.signal,
      onStart: (total) => {
        bar?.stop();
        bar = byteProgress(out, "download", total);
      },
      onProgress: (bytes) => bar?.update(bytes),
      onRetry: (attempt, delayMs, reason) =>
        out.note(
          `The download broke off (${reason}); retrying in ${seconds(delayMs)} (attempt ${attempt + 1}).`,
        ),
    });
    return sizeBytes;
  } finally {
    bar?.stop();
  }
}

/** What became of a job cancelled after the command stopped. */
interface CancelOutcome {
  cancelled: boolean;
  /** What to tell the person. */
  message: string;
  job?: AnyJob;
}

/**
 * Cancels a job whose file never arrived (after Ctrl-C or a failed upload): the price goes back
 * to the balance. Uses its own time-limited signal, since the command's has already fired.
 */
export async function cancelAfterStop<J extends AnyJob>(
  ctx: ClientContext,
  kind: JobKind<J>,
  job: J,
): Promise<CancelOutcome> {
  if (paidByCheckout(job)) {
    return {
      cancelled: false,
      message: `Nothing was charged for ${job.id} (it waits for a payment that was never made).`,
    };
  }
  const api = ctx.api.withSignal(AbortSignal.timeout(15_000));
  try {
    const res = await kind.cancel(api, job.id);
    const balance = res.wallet ? ` (balance ${dollars(res.wallet.balance_cents)})` : "";
    return {
      cancelled: true,
      job: res.job,
      message: `Cancelled ${job.id}; ${dollars(job.amount_cents ?? 0)} was refunded to your balance${balance}.`,
    };
  } catch (err) {
    // cast: the client's calls reject with its KinoraError or fetch's Error
    const why = isAbort(err) ? "no answer in time" : (err as Error).message;
    return {
      cancelled: false,
      message: `Could not cancel ${job.id} (${why}). Cancel it with \`kinora cancel ${job.id}\` for a refund.`,
    };
  }
}
