/**
 * The kinds of job the client follows, from the SDK's list (`JOB_KINDS`, generated from the
 * server's registry): each kind's operations — read, list, cancel —, the prefix of its ids and
 * what each final status means for the person and the exit code. Nothing here names a kind: a
 * kind the server adds is read, listed and cancelled by `kinora get`, `kinora jobs` and `kinora
 * cancel` once the SDK is regenerated, shown by the generic lines below or, where it has words
 * of its own, by its presentation (kind-presentations.ts).
 */
import {
  JOB_KIND_NAMES,
  JOB_KINDS,
  type JobKindName,
  type JobOf,
  type KindCall,
  kindCalls,
  OPERATIONS,
  type Schemas,
  type Wallet,
} from "@kinora/client";
import { EXIT } from "./exit-codes.js";
import { ApiFailure, CliFailure, UsageError } from "./failures.js";
import { dollars, formatBytes } from "./format.js";
import type { ApiClient, CallExtras } from "./http.js";
import { type KindPresentation, PRESENTATIONS } from "./kind-presentations.js";

/** A file sent in parts, as a job's read shows how far it got. */
interface UploadSummary {
  status: string;
  size_bytes: number;
  part_count: number;
  received_parts: number;
  received_bytes: number;
}

/**
 * What the client reads of any kind's job: the engine's fields every job has, and the ones a
 * kind may have (each read only where it is there). Every kind's job is one of these.
 */
export interface AnyJob {
  id: string;
  status: string;
  created_at: string;
  amount_cents?: number;
  progress?: number | null;
  error?: string | null;
  error_code?: string | null;
  refused?: string | null;
  finished_at?: string | null;
  expires_at?: string | null;
  queue?: Schemas["QueueEstimate"] | null;
  download_url?: string | null;
  paid_from_balance?: boolean;
  upload?: UploadSummary | null;
  webhook?: JobWebhook | null;
}

/** A job's own webhook as reads show it: its URL, events and latest deliveries. */
export interface JobWebhook {
  url: string;
  events: string[];
  deliveries: Schemas["WebhookDelivery"][];
}

/** What a cancel answers: the job, refunded, and (where the kind answers it) the wallet after. */
interface Cancelled<J> {
  job: J;
  wallet?: Wallet;
}

/** One kind of job as the client handles it. */
export interface JobKind<J extends AnyJob = AnyJob> {
  /** The server's name for the kind ("restore"). */
  readonly name: JobKindName;
  /** How messages name several ("restores"). */
  readonly plural: string;
  /** Its ids are `<idPrefix>_…`. */
  readonly idPrefix: string;
  /** Whether reading one needs a key (a restore's id is its own capability; a clip's is not). */
  readonly keyedRead: boolean;
  /** Statuses a job stays in (the server's final list for the kind). */
  readonly terminal: ReadonlySet<string>;
  /** Its words beyond the generic lines: what a job is, notes on its price, its file name. */
  readonly present: KindPresentation<J>;
  /** One read; `waitSec` asks the server to hold the answer until the job changes. */
  read(api: ApiClient, id: string, waitSec: number): Promise<J>;
  /** This key's newest `limit` jobs of the kind, newest first (as many pages as it takes). */
  list(api: ApiClient, limit: number): Promise<J[]>;
  /** Cancels a job whose file never arrived (the price goes back to the balance). */
  cancel(api: ApiClient, id: string): Promise<Cancelled<J>>;
}

/** The client's calls as the SDK's kind calls take them, with the CLI's extras (long polls). */
function via(api: ApiClient, extras: CallExtras = {}): KindCall {
  return (id, input, options) =>
    api.call(id, input, options.signal ? { ...extras, signal: options.signal } : extras);
}

/** The bars show progress, so a held read also ends at each progress report. */
const waitArg = (waitSec: number) =>
  waitSec > 0 ? { wait: waitSec, until: "progress" as const } : {};

/** Lines for a kind with no presentation of its own: the generic lines say it all. */
const GENERIC: KindPresentation<AnyJob> = { summary: () => "", what: () => [] };

/** The kind `name` as the client handles it, from the SDK's entry and calls for it. */
export function kindNamed<N extends JobKindName>(name: N): JobKind<JobOf<N>> {
  const entry = JOB_KINDS[name];
  const present: KindPresentation<JobOf<N>> = PRESENTATIONS[name] ?? GENERIC;
  return {
    name,
    plural: entry.plural,
    idPrefix: entry.idPrefix,
    keyedRead: OPERATIONS[entry.get].auth === "key",
    terminal: new Set<string>(entry.final),
    present,
    // Long polls may take their wait on top of the request's own time-out.
    read: (api, id, waitSec) =>
      kindCalls(via(api, { extraTimeoutMs: waitSec * 1000 }))[name].get(
        { id, ...waitArg(waitSec) },
        {},
      ),
    async list(api, limit) {
      const calls = kindCalls(via(api))[name];
      const jobs: JobOf<N>[] = [];
      let cursor: string | null = null;
      do {
        const size = Math.min(entry.listMax, limit - jobs.length);
        const page = await calls.list({ limit: size, ...(cursor ? { cursor } : {}) }, {});
        jobs.push(...page.jobs);
        cursor = page.next_cursor;
      } while (cursor && jobs.length < limit);
      return jobs;
    },
    cancel: (api, id) => kindCalls(via(api))[name].cancel({ id }, {}),
  };
}

/** Every kind the client follows, in the server registry's order. */
export const KINDS: readonly JobKind[] = JOB_KIND_NAMES.map((name) => kindNamed(name));

/** The kind a job id belongs to, by its prefix. */
export function kindOf(id: string): JobKind {
  const kind = KINDS.find((k) => new RegExp(`^${k.idPrefix}_[0-9A-Za-z]+$`).test(id));
  if (kind) return kind;
  const [first, ...rest] = KINDS.map((k) => `${k.plural} with ${k.idPrefix}_`);
  const which = [first?.replace(" with ", " start with "), ...rest].join(", ");
  throw new UsageError(`"${id}" is not a job id: ${which}.`);
}

/**
 * This key's newest `limit` jobs of every kind, newest first, each with its kind. A kind the
 * server does not serve (an older server, a newer client) answers 404 and is left out; when no
 * kind is served at all, that 404 is the failure (not a kinora server, or not this one's API).
 */
export async function listJobs(
  api: ApiClient,
  limit: number,
): Promise<{ kind: JobKind; job: AnyJob }[]> {
  const lists = await Promise.all(
    KINDS.map(async (kind) => {
      try {
        return (await kind.list(api, limit)).map((job) => ({ kind, job }));
      } catch (err) {
        if (err instanceof ApiFailure && err.status === 404) return err;
        throw err;
      }
    }),
  );
  const served = lists.flatMap((l) => (l instanceof ApiFailure ? [] : [l]));
  const [notServed] = lists.flatMap((l) => (l instanceof ApiFailure ? [l] : []));
  if (served.length === 0 && notServed) throw notServed;
  return served
    .flat()
    .sort((a, b) => Date.parse(b.job.created_at) - Date.parse(a.job.created_at))
    .slice(0, limit);
}

/** One read of a job; `waitSec` asks the server to hold the answer until it changes. */
export function readJob<J extends AnyJob>(
  api: ApiClient,
  kind: JobKind<J>,
  id: string,
  waitSec = 0,
): Promise<J> {
  return kind.read(api, id, waitSec);
}

/** The result's default file name: the kind's own, or the job's id with the link's extension. */
export function resultFileName<J extends AnyJob>(
  kind: JobKind<J>,
  job: J,
  source?: string,
): string {
  if (kind.present.fileName) return kind.present.fileName(job, source);
  let ext = "";
  try {
    ext = /\.[A-Za-z0-9]{1,5}$/.exec(new URL(job.download_url ?? "").pathname)?.[0] ?? "";
  } catch {
    // No link, or not a URL: no extension.
  }
  return `${job.id}${ext}`;
}

/** Whether the job was paid by a checkout link rather than from the balance. */
export function paidByCheckout(job: AnyJob): boolean {
  return job.paid_from_balance === false;
}

/** 2 → "2nd". */
function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${s}`;
}

/** Whether the server says the job waits for a worker (a restore's status is still processing). */
export function isQueued(job: AnyJob): boolean {
  return job.queue?.state === "queued";
}

/**
 * Where the job stands in the server's queue — "next in the queue", "3rd in the queue", or
 * "a worker is running it" — as the console words it; "" without an estimate.
 */
export function queuePlace(job: AnyJob): string {
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
export function queueText(job: AnyJob): { where: string; etaSeconds: number | null } {
  const q = job.queue;
  if (!q) return { where: "", etaSeconds: null };
  return { where: isQueued(job) ? queuePlace(job) : "", etaSeconds: q.eta_seconds };
}

/** How far a file sent in parts got ("2 of 5 parts, 10.0 MB of 23.0 MB"); "" for any other. */
export function partsText(job: AnyJob): string {
  const upload = job.upload;
  if (!upload || upload.status === "completed" || upload.status === "aborted") return "";
  return `${upload.received_parts} of ${upload.part_count} parts, ${formatBytes(upload.received_bytes)} of ${formatBytes(upload.size_bytes)}`;
}

/** A short status for a progress bar or a log line. */
export function statusText(job: AnyJob): string {
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

/** Where the price went back, or nothing for a job that cost nothing. */
function refundNote(job: AnyJob): string {
  if (!job.amount_cents) return "Nothing was charged.";
  const amount = dollars(job.amount_cents);
  if (paidByCheckout(job)) return `The card payment of ${amount} is refunded.`;
  return `${amount} was refunded to your balance.`;
}

/**
 * Nothing for a done job; otherwise the failure to stop with: failed → 4 (the server's side),
 * refused or refunded for a wrong length → 3, cancelled or expired → 1.
 */
export function failureOf<J extends AnyJob>(kind: JobKind<J>, job: J): CliFailure | undefined {
  const what = `The ${kind.name}`;
  const because = job.error ? `: ${job.error.replace(/\.$/, "")}` : "";
  const fields = { job };
  switch (job.status) {
    case "done":
      return undefined;
    case "failed":
      return new CliFailure(`${what} failed${because}. ${refundNote(job)}`, EXIT.server, fields);
    case "refused": {
      const code = job.refused ?? "refused";
      const why = kind.present.refusal?.(code) ?? `${what} was refused (${code}).`;
      return new CliFailure(`${why} ${refundNote(job)}`, EXIT.refused, fields);
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
