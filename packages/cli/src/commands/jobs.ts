/** `kinora jobs`, `kinora get ID`, `kinora cancel ID`: the jobs already made. */
import { stat } from "node:fs/promises";
import path from "node:path";
import {
  type ClientCommand,
  type ClientContext,
  COMMON_HELP,
  flagArg,
  stringArg,
} from "../command.js";
import { freePath } from "../download.js";
import { EXIT } from "../exit-codes.js";
import { CliFailure, UsageError } from "../failures.js";
import { dollars, formatAge, labelled as line, table, truncate } from "../format.js";
import {
  type AnyJob,
  failureOf,
  isQueued,
  type JobKind,
  type JobWebhook,
  KINDS,
  kindOf,
  listJobs,
  paidByCheckout,
  partsText,
  queuePlace,
  readJob,
  resultFileName,
  statusText,
} from "../job-kinds.js";
import { downloadStep, followStep } from "../job-steps.js";
import { etaText } from "../progress.js";

async function jobs(ctx: ClientContext): Promise<number> {
  ctx.api.requireKey();
  const limit = Number(stringArg(ctx.args, "limit") ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new UsageError("--limit must be a whole number from 1 to 100.");
  }
  const listed = await listJobs(ctx.api, limit);
  const rows = listed.map(({ kind, job }) => [
    job.id,
    kind.name,
    listedStatus(job),
    job.amount_cents === undefined ? "" : dollars(job.amount_cents),
    formatAge(job.created_at),
    truncate(kind.present.summary(job), 40),
  ]);
  ctx.out.result(
    { jobs: listed.map(({ kind, job }) => ({ ...job, kind: kind.name })) },
    listed.length === 0
      ? 'No jobs yet: kinora restore FILE, or kinora clip IMAGE "prompt".'
      : table(["ID", "KIND", "STATUS", "PRICE", "AGE", "WHAT"], rows),
  );
  return 0;
}

/** Statuses in which the price went back (the whole of it). */
const REFUNDED = new Set(["failed", "refunded", "refused", "cancelled"]);

/**
 * The price, how it was paid, and what came back: a refund, and the kind's own notes (a
 * shorter restore's part). A job that cost nothing says so.
 */
function priceLines<J extends AnyJob>(kind: JobKind<J>, job: J): string[] {
  if (job.amount_cents === undefined) return [];
  if (job.amount_cents === 0) return [line("Price", "free")];
  const byCard = paidByCheckout(job);
  const paid =
    job.status === "pending_payment"
      ? "by checkout, not paid yet"
      : byCard
        ? "by checkout"
        : "from the balance";
  const lines = [line("Price", `${dollars(job.amount_cents)} ${paid}`)];
  lines.push(...(kind.present.priceNotes?.(job) ?? []));
  if (REFUNDED.has(job.status)) {
    const to = byCard ? "to the card" : "to the balance";
    lines.push(line("Refund", `${dollars(job.amount_cents)} ${to} (${job.status})`));
  }
  return lines;
}

/**
 * A job's status in the list: a job waiting for a worker says queued with its place (a
 * restore's status is processing meanwhile), a running one its progress.
 */
function listedStatus(job: AnyJob): string {
  if (isQueued(job)) return `queued (${queuePlace(job)})`;
  if (job.status === "processing" && job.progress) {
    return `processing ${Math.round(job.progress * 100)}%`;
  }
  // A file sent in parts: how many arrived (another run, or another machine, may be sending).
  const parts = partsText(job);
  return parts ? `${job.status} (${parts})` : job.status;
}

/** Where it stands now: progress, the server's queue place and estimate. */
function progressLines(kind: JobKind, job: AnyJob): string[] {
  if (kind.terminal.has(job.status)) return [];
  const lines: string[] = [];
  if (job.progress !== null && job.progress !== undefined && !isQueued(job)) {
    lines.push(line("Progress", `${Math.round(job.progress * 100)}%`));
  }
  if (job.queue) {
    const q = job.queue;
    lines.push(
      line(
        "Queue",
        `${queuePlace(job)}; ${etaText(q.eta_seconds)} (done about ${q.estimated_done_at})`,
      ),
    );
  }
  return lines;
}

/** The deadline or deletion time `expires_at` means in this status. */
function expiryLine(job: AnyJob): string[] {
  if (!job.expires_at) return [];
  switch (job.status) {
    case "awaiting_upload":
      return [line("Expires", `${job.expires_at}: upload the file by then or the job expires`)];
    case "pending_payment":
      return [line("Expires", `${job.expires_at}: pay by then or the job expires`)];
    case "done":
      return [line("Kept", `until ${job.expires_at}, then its files are deleted`)];
    default:
      return [];
  }
}

/** The result's links (temporary: each read gives fresh ones) and the command that saves it. */
function linkLines<J extends AnyJob>(kind: JobKind<J>, job: J): string[] {
  if (job.download_url) {
    return [
      line("Download", `kinora get ${job.id} --download PATH`),
      line("Link", `${job.download_url} (temporary)`),
      ...(kind.present.links?.(job) ?? []),
    ];
  }
  if (!kind.terminal.has(job.status)) return [line("Follow", `kinora get ${job.id} --follow`)];
  return [];
}

/** The job's own webhook and its latest deliveries, newest first. */
function webhookLines(hook: JobWebhook | null | undefined): string[] {
  if (!hook) return [];
  const lines = [line("Webhook", `${hook.url} (${hook.events.join(", ")})`)];
  for (const d of hook.deliveries) {
    const tries = `${d.attempts} attempt${d.attempts === 1 ? "" : "s"}`;
    const answer = d.last_status_code ? `, HTTP ${d.last_status_code}` : "";
    const why = d.last_error ? `: ${truncate(d.last_error, 60)}` : "";
    const next = d.state === "pending" && d.next_attempt_at ? `, next ${d.next_attempt_at}` : "";
    lines.push(`            ${d.type} ${d.state} (${tries}${answer}${next})${why}`);
  }
  return lines;
}

/**
 * `kinora get`'s lines for a person: the job's whole state — status, what it is, progress and
 * the server's queue estimate, price and refunds, times and expiry, errors, webhook, links.
 */
export function jobLines<J extends AnyJob>(kind: JobKind<J>, job: J): string[] {
  const progress =
    job.status === "processing" && job.progress ? ` ${Math.round(job.progress * 100)}%` : "";
  const lines = [`${job.id}  ${kind.name}  ${statusText(job)}${progress}`];
  lines.push(...kind.present.what(job), ...progressLines(kind, job), ...priceLines(kind, job));
  lines.push(line("Created", `${job.created_at} (${formatAge(job.created_at)})`));
  if (job.finished_at) lines.push(line("Finished", job.finished_at));
  lines.push(...expiryLine(job));
  if (job.error) {
    const code = job.error_code ? ` (${job.error_code})` : "";
    lines.push(line("Error", `${job.error}${code}`));
  }
  if (job.refused) lines.push(line("Refused", job.refused));
  lines.push(...webhookLines(job.webhook), ...linkLines(kind, job));
  return lines;
}

async function get(ctx: ClientContext): Promise<number> {
  const [id, extra] = ctx.args.positionals;
  if (!id || extra) throw new UsageError("Usage: kinora get JOB_ID [--follow] [--download PATH]");
  const kind = kindOf(id);
  if (kind.keyedRead) ctx.api.requireKey();
  const download = stringArg(ctx.args, "download");
  const follow = flagArg(ctx.args, "follow") || download !== undefined;
  let job = await readJob(ctx.api, kind, id);
  if (follow && job.status === "awaiting_upload") {
    // Only the client that created it can upload and start it: following would wait forever.
    throw new CliFailure(
      `${id} is still waiting for its file and will not run; if the file never arrived, kinora cancel ${id} refunds it.`,
      EXIT.failed,
      { job },
    );
  }
  if (follow && !kind.terminal.has(job.status)) job = await followStep(ctx, kind, id);
  if (download === undefined) {
    ctx.out.result({ job }, jobLines(kind, job));
    return follow ? exitFor(kind, job) : 0;
  }
  const failure = failureOf(kind, job);
  if (failure) throw failure;
  if (!job.download_url) throw new UsageError(`${id} has no result to download any more.`);
  const dest = await resolveDest(download, resultFileName(kind, job));
  const sizeBytes = await downloadStep(ctx, job.download_url, dest);
  ctx.out.result({ job, output: dest, size_bytes: sizeBytes }, `Saved ${dest}.`);
  return 0;
}

function exitFor(kind: JobKind, job: AnyJob): number {
  return failureOf(kind, job)?.exitCode ?? 0;
}

/** A directory given as PATH gets the result's own name inside it (never overwriting). */
async function resolveDest(given: string, fileName: string): Promise<string> {
  const info = await stat(given).catch(() => undefined);
  return info?.isDirectory() ? freePath(path.resolve(given), fileName) : path.resolve(given);
}

async function cancel(ctx: ClientContext): Promise<number> {
  const [id, extra] = ctx.args.positionals;
  if (!id || extra) throw new UsageError("Usage: kinora cancel JOB_ID");
  const kind = kindOf(id);
  ctx.api.requireKey();
  // Cancelling a cancelled job answers it unchanged (no money moves): read it first, so a second
  // cancel says it was refunded back then instead of announcing a refund again.
  const before = await readJob(ctx.api, kind, id);
  if (before.status === "cancelled") {
    const then = before.amount_cents
      ? `its ${dollars(before.amount_cents)} was refunded then`
      : "it cost nothing";
    ctx.out.result(
      { job: before, already_cancelled: true, refunded_now_cents: 0 },
      `${id} was already cancelled; ${then}. Nothing changed now.`,
    );
    return 0;
  }
  const res = await kind.cancel(ctx.api, id);
  const refunded = res.job.amount_cents ?? 0;
  const balance = res.wallet ? ` (balance ${dollars(res.wallet.balance_cents)})` : "";
  const money = refunded
    ? `${dollars(refunded)} was refunded to your balance${balance}`
    : "nothing was charged for it";
  ctx.out.result(
    { ...res, already_cancelled: false, refunded_now_cents: refunded },
    `Cancelled ${id}; ${money}.`,
  );
  return 0;
}

/** The kinds' plurals, "restores, clips and previews", and their ids, "rj_… for restores, …". */
const PLURALS = KINDS.map((k) => k.plural)
  .join(", ")
  .replace(/, ([^,]*)$/, " and $1");
const ID_FORMS = KINDS.map((k) => `${k.idPrefix}_… for ${k.plural}`).join(", ");

/** `kinora jobs`: recent jobs of every kind. */
export const jobsCommand: ClientCommand = {
  name: "jobs",
  summary: `recent ${PLURALS} with status, price and age`,
  options: { limit: { type: "string" } },
  help: `Usage: kinora jobs [--limit N]

Lists this key's recent ${PLURALS}, newest first (an agent key sees only
the jobs it made).

Examples:
  kinora jobs
  kinora jobs --limit 5 --json | jq -r '.jobs[] | select(.status=="done") | .id'

${COMMON_HELP}`,
  run: jobs,
};

/** `kinora get ID`: one job; follow it or download its result. */
export const getCommand: ClientCommand = {
  name: "get",
  summary: "one job; --follow to watch it, --download PATH to save the result",
  options: { follow: { type: "boolean" }, download: { type: "string" } },
  help: `Usage: kinora get JOB_ID [--follow] [--download PATH]

Shows one job whole (${ID_FORMS}): its status, what it is, progress
and the server's queue place and estimate, the price and any refund, when it was
made and finished, its upload or payment deadline or how long its files are kept,
any error, its webhook with the latest deliveries, and its result links. --follow
waits for it to finish with a progress bar; --download waits too and saves the result to PATH (a directory gets
the result's own name). This is how to pick up a job after Ctrl-C.

Examples:
  kinora get rj_5pX0c1Hq3GvJ2Yb8Lw9RzA
  kinora get rj_5pX0c1Hq3GvJ2Yb8Lw9RzA --download ~/Videos/
  kinora get clip_7dK2… --follow --json

${COMMON_HELP}`,
  run: get,
};

/** `kinora cancel ID`: cancel a job whose file never arrived. */
export const cancelCommand: ClientCommand = {
  name: "cancel",
  summary: "cancel a job whose file never arrived (refunded at once)",
  options: {},
  help: `Usage: kinora cancel JOB_ID

Cancels a balance-paid job (${ID_FORMS}) whose file was never
uploaded; the price goes back to the balance (and the agent key's allowance). A job
that already has its file cannot be cancelled.

Examples:
  kinora cancel rj_5pX0c1Hq3GvJ2Yb8Lw9RzA

${COMMON_HELP}`,
  run: cancel,
};
