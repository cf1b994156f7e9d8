/**
 * The two kinds of job the client follows — restores (`rj_…`) and clips (`clip_…`) — each as
 * its operations (read, cancel) and what each final status means for the person and the exit
 * code. A job is the SDK's type, generated from the server's: nothing here redeclares it.
 */
import {
  type ClipJob,
  FINAL_CLIP_STATUSES,
  FINAL_RESTORE_STATUSES,
  type RestoreJob,
  type Wallet,
} from "@kinora/client";
import { EXIT } from "./exit-codes.js";
import { CliFailure, UsageError } from "./failures.js";
import { dollars, formatBytes } from "./format.js";
import type { ApiClient } from "./http.js";

/** A job as the API shows it: a restore or a clip (tell them apart with `"filename" in job`). */
export type Job = RestoreJob | ClipJob;

/** What a cancel answers: the job, refunded, and (for a restore) the wallet after the refund. */
interface Cancelled {
  job: Job;
  wallet?: Wallet;
}

/** One kind of job as the client handles it. */
export interface JobKind {
  name: "restore" | "clip";
  /** Restore reads need no key (the id is the capability); clip reads do. */
  keyedRead: boolean;
  /** Statuses a job stays in (the server's final list for the kind). */
  terminal: ReadonlySet<string>;
  /** One read; `waitSec` asks the server to hold the answer until the job changes. */
  read(api: ApiClient, id: string, waitSec: number): Promise<Job>;
  /** Cancels a job whose file never arrived (the price goes back to the balance). */
  cancel(api: ApiClient, id: string): Promise<Cancelled>;
}

/** Long polls may take their wait on top of the request's own time-out. */
const held = (waitSec: number) => ({ extraTimeoutMs: waitSec * 1000 });
/** The bars show progress, so a held read also ends at each progress report. */
const waitArg = (waitSec: number) =>
  waitSec > 0 ? { wait: waitSec, until: "progress" as const } : {};

/** Restores (`rj_…`): read without a key (the SDK sends none to getRestore). */
export const RESTORE: JobKind = {
  name: "restore",
  keyedRead: false,
  terminal: new Set(FINAL_RESTORE_STATUSES),
  read: async (api, id, waitSec) =>
    (await api.call("getRestore", { id, ...waitArg(waitSec) }, held(waitSec))).job,
  cancel: (api, id) => api.call("cancelRestore", { id }),
};

/** Clips (`clip_…`): read with a key. */
export const CLIP: JobKind = {
  name: "clip",
  keyedRead: true,
  terminal: new Set(FINAL_CLIP_STATUSES),
  read: async (api, id, waitSec) =>
    (await api.call("getClip", { id, ...waitArg(waitSec) }, held(waitSec))).job,
  cancel: (api, id) => api.call("cancelClip", { id }),
};

/** The kind a job id belongs to, by its prefix. */
export function kindOf(id: string): JobKind {
  if (/^rj_[0-9A-Za-z]+$/.test(id)) return RESTORE;
  if (/^clip_[0-9A-Za-z]+$/.test(id)) return CLIP;
  throw new UsageError(`"${id}" is not a job id: restores start with rj_, clips with clip_.`);
}

/** One read of a job; `waitSec` asks the server to hold the answer until it changes. */
export function readJob(api: ApiClient, kind: JobKind, id: string, waitSec = 0): Promise<Job> {
  return kind.read(api, id, waitSec);
}

/** Whether the job was paid by a checkout link rather than from the balance. */
export function paidByCheckout(job: Job): boolean {
  return "paid_from_balance" in job && job.paid_from_balance === false;
}

/** Lower-case ASCII words joined by `-` (accents dropped, everything else a separator), at
 * most `max` characters, cut at a word boundary when it can be. */
export function slug(text: string, max = 40): string {
  const words = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (words.length <= max) return words;
  const cut = words.slice(0, max + 1);
  const boundary = cut.lastIndexOf("-");
  return (boundary > max / 2 ? cut.slice(0, boundary) : words.slice(0, max)).replace(/-+$/, "");
}

/** A name without its directory and extension, from a path or an http(s) URL. */
function stem(nameOrUrl: string): string {
  let name = nameOrUrl;
  try {
    if (/^https?:\/\//i.test(nameOrUrl)) name = decodeURIComponent(new URL(nameOrUrl).pathname);
  } catch {
    // Not a URL after all: use it as a name.
  }
  const base = name.split(/[\\/]/).pop() ?? "";
  return base.replace(/\.[A-Za-z0-9]{1,5}$/, "");
}

/**
 * The result's default file name, of safe characters only: `NAME-restored.mp4` for a restore;
 * for a clip the image's name and the prompt's first words with the id's tail,
 * `harbour_slow-push-in-gulls_clip_ab12.mp4`. `image` is the local file or URL it was made from
 * (a clip read back by id knows only its image_url). The caller picks a free name beside it.
 */
export function resultFileName(job: Job, image?: string): string {
  if (!("filename" in job)) {
    const from = image ?? job.image_url ?? "";
    const parts = [slug(stem(from), 30), slug(job.prompt, 40)].filter(Boolean);
    const tail = job.id.slice(-4);
    return `${[...parts, "clip", tail].join("_")}.mp4`;
  }
  // The person's own name, kept as it is, but never a path (a name from the server could be).
  const base = stem(job.filename)
    .replace(/[\p{Cc}/\\:]+/gu, "-")
    .replace(/^\.+/, "");
  return `${base || "video"}-restored.mp4`;
}

/** 2 → "2nd". */
function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${s}`;
}

/** Whether the server says the job waits for a worker (a restore's status is still processing). */
export function isQueued(job: Job): boolean {
  return job.queue?.state === "queued";
}

/**
 * Where the job stands in the server's queue — "next in the queue", "3rd in the queue", or
 * "a worker is running it" — as the console words it; "" without an estimate.
 */
export function queuePlace(job: Job): string {
  const q = job.queue;
  if (!q) return "";
  if (q.state === "running") return "a worker is running it";
  return q.position <= 1 ? "next in the queue" : `${ordinal(q.position)} in the queue`;
}

/**
 * Where the job stands in the server's queue, and its estimate: the place (empty once a worker
 * runs it: the bar shows progress then) with the seconds the server expects until done (null
 * when it gives none). The figure is the server's `queue.eta_seconds`, the one the console shows.
 */
export function queueText(job: Job): { where: string; etaSeconds: number | null } {
  const q = job.queue;
  if (!q) return { where: "", etaSeconds: null };
  return { where: isQueued(job) ? queuePlace(job) : "", etaSeconds: q.eta_seconds };
}

/** How far a file sent in parts got ("2 of 5 parts, 10.0 MB of 23.0 MB"); "" for any other. */
export function partsText(job: Job): string {
  const upload = (job as { upload?: UploadSummary | null }).upload;
  if (!upload || upload.status === "completed" || upload.status === "aborted") return "";
  return `${upload.received_parts} of ${upload.part_count} parts, ${formatBytes(upload.received_bytes)} of ${formatBytes(upload.size_bytes)}`;
}

interface UploadSummary {
  status: string;
  size_bytes: number;
  part_count: number;
  received_parts: number;
  received_bytes: number;
}

/** A short status for a progress bar or a log line. */
export function statusText(job: Job): string {
  if (isQueued(job)) return "waiting for a worker";
  const parts = partsText(job);
  switch (job.status) {
    case "awaiting_upload":
      return parts ? `waiting for the upload: ${parts}` : "waiting for the upload";
    case "pending_payment":
      return parts ? `waiting for the upload and payment: ${parts}` : "waiting for payment";
    case "queued":
      return "queued for a worker";
    default:
      return job.status;
  }
}

function refundNote(job: Job): string {
  const amount = dollars(job.amount_cents);
  if (paidByCheckout(job)) return `The card payment of ${amount} is refunded.`;
  return `${amount} was refunded to your balance.`;
}

/**
 * Nothing for a done job; otherwise the failure to stop with: failed → 4 (the server's side),
 * refused or refunded for a wrong length → 3, cancelled or expired → 1.
 */
export function failureOf(kind: JobKind, job: Job): CliFailure | undefined {
  const what = kind.name === "restore" ? "The restore" : "The clip";
  const because = job.error ? `: ${job.error.replace(/\.$/, "")}` : "";
  const fields = { job };
  switch (job.status) {
    case "done":
      return undefined;
    case "failed":
      return new CliFailure(`${what} failed${because}. ${refundNote(job)}`, EXIT.server, fields);
    case "refused": {
      const code = ("refused" in job ? job.refused : null) ?? "refused";
      return new CliFailure(
        `The image was refused by the content rule (${code}). ${refundNote(job)}`,
        EXIT.refused,
        fields,
      );
    }
    case "refunded":
      return new CliFailure(
        job.error ? `${what} was refused: ${job.error}` : `${what} was refused and refunded.`,
        EXIT.refused,
        fields,
      );
    default:
      return new CliFailure(`${what} is ${job.status}${because}.`, EXIT.failed, fields);
  }
}
