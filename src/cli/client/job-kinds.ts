/**
 * The two kinds of job the client follows — restores (`rj_…`, /cloud/jobs) and clips
 * (`clip_…`, /motion/jobs) — and what each final status means for the person and the exit code.
 */
import { EXIT } from "./exit-codes.js";
import { CliFailure, UsageError } from "./failures.js";
import { dollars } from "./format.js";
import type { ApiClient } from "./http.js";

/** The fields the client reads from a RestoreJob or a Clip. */
export interface Job {
  id: string;
  status: string;
  progress?: number | null;
  amount_cents: number;
  download_url?: string | null;
  error?: string | null;
  refused?: string | null;
  created_at: string;
  filename?: string;
  prompt?: string;
  size?: number | string;
  quality_label?: string;
  paid_from_balance?: boolean;
}

export interface JobKind {
  name: "restore" | "clip";
  /** Collection path on the API. */
  base: string;
  /** Restore reads need no key (the id is the capability); clip reads do. */
  keyedRead: boolean;
  terminal: ReadonlySet<string>;
}

export const RESTORE: JobKind = {
  name: "restore",
  base: "/cloud/jobs",
  keyedRead: false,
  terminal: new Set(["done", "failed", "refunded", "cancelled", "expired"]),
};

export const CLIP: JobKind = {
  name: "clip",
  base: "/motion/jobs",
  keyedRead: true,
  terminal: new Set(["done", "failed", "refused", "cancelled", "expired"]),
};

/** The kind a job id belongs to, by its prefix. */
export function kindOf(id: string): JobKind {
  if (/^rj_[0-9A-Za-z]+$/.test(id)) return RESTORE;
  if (/^clip_[0-9A-Za-z]+$/.test(id)) return CLIP;
  throw new UsageError(`"${id}" is not a job id: restores start with rj_, clips with clip_.`);
}

/** One read of a job; `waitSec` asks the server to hold the answer until it changes. */
export async function readJob(
  api: ApiClient,
  kind: JobKind,
  id: string,
  waitSec = 0,
): Promise<Job> {
  const res = await api.get<{ job: Job }>(`${kind.base}/${encodeURIComponent(id)}`, {
    auth: kind.keyedRead,
    query: waitSec > 0 ? { wait: waitSec } : {},
    extraTimeoutMs: waitSec * 1000,
  });
  return res.job;
}

/** The result's default file name: `NAME-restored.mp4` for a restore, `clip_ID.mp4` for a clip. */
export function resultFileName(kind: JobKind, job: Job): string {
  if (kind.name === "clip") return `${job.id}.mp4`;
  const base = (job.filename ?? "").replace(/\.[A-Za-z0-9]{1,5}$/, "") || "video";
  return `${base}-restored.mp4`;
}

/** A short status for a progress bar or a log line. */
export function statusText(job: Job): string {
  switch (job.status) {
    case "awaiting_upload":
      return "waiting for the upload";
    case "pending_payment":
      return "waiting for payment";
    case "queued":
      return "queued for a worker";
    default:
      return job.status;
  }
}

function refundNote(kind: JobKind, job: Job): string {
  const amount = dollars(job.amount_cents);
  if (kind.name === "restore" && job.paid_from_balance === false) {
    return `The card payment of ${amount} is refunded.`;
  }
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
      return new CliFailure(
        `${what} failed${because}. ${refundNote(kind, job)}`,
        EXIT.server,
        fields,
      );
    case "refused":
      return new CliFailure(
        `The image was refused by the content rule (${job.refused ?? "refused"}). ${refundNote(kind, job)}`,
        EXIT.refused,
        fields,
      );
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
