/**
 * The console's jobs section: one table per job kind the server serves (its list operation's
 * jobs, newest first), each job with its status in words (queue place, progress, a long job's
 * segments done/running/waiting, and the server's estimate), how long its files are kept, its result, a Cancel while its file has not
 * arrived, and — where the kind makes them — its before/after pictures. No kind is named here:
 * columns come from the fields the kinds' views share (a video's file name, a clip's prompt).
 */
import type { z } from "@hono/zod-openapi";
import type { QueueEstimate } from "../api/schemas.js";
import { dollars, etaWords, when } from "./console-format.js";
import { type FormError, FormErrorText, Hidden } from "./form-error.js";
import { Owned, ownedText } from "./owned-text.js";

type Queue = z.input<typeof QueueEstimate>;

/** What the console reads of a job's view (every kind's view has the common fields). */
export interface JobRow {
  id: string;
  status: string;
  progress: number | null;
  queue: Queue | null;
  amount_cents: number;
  display_price?: string;
  created_at: string;
  expires_at: string | null;
  download_url?: string | null;
  error: string | null;
  /** A file the job was made from (a restore's video). */
  filename?: string;
  /** What the job was asked for in words (a clip's prompt). */
  prompt?: string;
  /** Its variant, as displays name it (a restore's quality label; a clip's size). */
  quality_label?: string;
  size?: unknown;
  /** A preview's findings, once done: the job links to its page. */
  preview?: unknown;
  /** A long job split across workers: its segments done, running and waiting. */
  segments?: { done: number; running: number; waiting: number } | null;
}

/** One kind's jobs as listed. */
export interface JobList {
  kind: { name: string; plural: string };
  jobs: JobRow[];
  /** What the kind takes, in a sentence (its prices' limits), shown under its heading. */
  limits?: string;
}

/** A done job's pictures, where its kind makes them. */
export interface JobPictures {
  /** The small before/after still of the job list. */
  still: boolean;
  /** Full-size frames: the still links to their comparison. */
  full: boolean;
}

const ordinal = (n: number) => {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${s}`;
};

/** Where a job stands, as the `kinora` client words it: "next in the queue", "3rd in the queue". */
const place = (queue: NonNullable<Queue>) => {
  if (queue.state === "running") return "a worker is running it";
  return queue.position <= 1 ? "next in the queue" : `${ordinal(queue.position)} in the queue`;
};

/** "segments: 3 done · 2 running · 4 waiting" (as many as the job has of each). */
function Segments(props: { segments: NonNullable<JobRow["segments"]> }) {
  const { done, running, waiting } = props.segments;
  const total = done + running + waiting;
  return (
    <div class="muted segments" data-done={done} data-running={running} data-waiting={waiting}>
      {total} segments: {done} done · {running} running · {waiting} waiting
    </div>
  );
}

/** Status with progress, the segments of a long job and the server's queue estimate. */
function JobStatus(props: { job: JobRow }) {
  const { status, progress, queue, segments } = props.job;
  // A job waiting for a worker may keep a running status by its kind's rules: it says queued.
  const queued = queue?.state === "queued";
  const shown = queued ? "queued" : status;
  const running = !queued && (status === "processing" || status === "queued");
  const pct = progress === null ? null : Math.round(progress * 100);
  return (
    <td data-label="Status" class="status">
      <span class="state">{shown}</span>
      {running && pct !== null ? (
        <div>
          <progress max={100} value={pct}>
            {pct}%
          </progress>{" "}
          {pct}%
        </div>
      ) : null}
      {running && segments ? <Segments segments={segments} /> : null}
      {queue ? (
        <div class="muted queue" data-eta-seconds={queue.eta_seconds}>
          {place(queue)} · done in{" "}
          <time datetime={queue.estimated_done_at}>{etaWords(queue.eta_seconds)}</time>
        </div>
      ) : null}
    </td>
  );
}

/** When a job's files go (or its upload is due), worded by status. */
function Expiry(props: { job: JobRow }) {
  const { status, expires_at: expiresAt } = props.job;
  let text = "—";
  if (expiresAt && status === "done") text = `deleted ${when(expiresAt)}`;
  else if (expiresAt && (status === "awaiting_upload" || status === "pending_payment")) {
    text = `upload by ${when(expiresAt)}`;
  }
  return (
    <td data-label="Files" class="expiry">
      {text}
    </td>
  );
}

/** What a job is, in words for a screen reader's link names. */
const subjectOf = (j: JobRow) => (j.filename !== undefined ? ownedText(j.filename) : `job ${j.id}`);

/** The small still; with full-size frames, a link to their comparison. */
function Still(props: { job: JobRow; pictures: JobPictures }) {
  const { job, pictures } = props;
  const img = (
    <img
      src={`/console/jobs/${job.id}/still`}
      width={480}
      alt={`The same frame of ${subjectOf(job)} before (left) and after (right)`}
    />
  );
  return (
    <figure class="still">
      {pictures.full ? (
        <a href={`/console/jobs/${job.id}/compare`} tabindex={-1}>
          {img}
        </a>
      ) : (
        img
      )}
      <figcaption class="muted">
        before · after
        {pictures.full ? (
          <>
            {" · "}
            <a href={`/console/jobs/${job.id}/compare`} class="compare">
              compare at full size<span class="sr"> ({subjectOf(job)})</span>
            </a>
          </>
        ) : null}
      </figcaption>
    </figure>
  );
}

/** The job's subject: the file it was made from, what it was asked for, or its id. */
function Subject(props: { job: JobRow; pictures: JobPictures | undefined }) {
  const { job, pictures } = props;
  if (job.filename !== undefined) {
    return (
      <td data-label="Video" class="video">
        <Owned text={job.filename} />
        {pictures?.still ? <Still job={job} pictures={pictures} /> : null}
      </td>
    );
  }
  if (job.prompt !== undefined) {
    return (
      <td data-label="Prompt">
        <Owned text={job.prompt.slice(0, 60)} />
      </td>
    );
  }
  return <td data-label="Job">{job.id}</td>;
}

/** A job's variant cell: its quality label, or its size; nothing for a kind with neither. */
function Variant(props: { job: JobRow }) {
  const { job } = props;
  if (job.quality_label !== undefined) return <td data-label="Quality">{job.quality_label}</td>;
  if (typeof job.size === "string") return <td data-label="Size">{job.size}</td>;
  return <td data-label="Variant">—</td>;
}

function Result(props: { job: JobRow }) {
  const { job } = props;
  return (
    <td data-label="Result">
      {job.preview ? (
        <a href={`/console/jobs/${job.id}/preview`}>
          See each quality<span class="sr"> ({job.id})</span>
        </a>
      ) : job.download_url ? (
        <a href={job.download_url}>
          Download
          <span class="sr"> {job.filename !== undefined ? subjectOf(job) : `${job.id}`}</span>
        </a>
      ) : (
        (job.error ?? "")
      )}
    </td>
  );
}

/** Cancel while the job's file has not arrived (refunded at once); a refusal beside it. */
function Cancel(props: { job: JobRow; csrf: string; error: FormError | undefined }) {
  const { job } = props;
  const form = `job:${job.id}`;
  return (
    <td class="actions" data-label="Cancel">
      <FormErrorText error={props.error} form={form} id={`job-error-${job.id}`} />
      {job.status === "awaiting_upload" ? (
        <form method="post" action={`/console/jobs/${job.id}/cancel#job-${job.id}`}>
          <Hidden csrf={props.csrf} />
          <button type="submit">
            Cancel<span class="sr"> {subjectOf(job)}</span>
          </button>
        </form>
      ) : null}
    </td>
  );
}

function Header(props: { jobs: JobRow[] }) {
  const first = props.jobs[0];
  const subject =
    first?.filename !== undefined ? "Video" : first?.prompt !== undefined ? "Prompt" : "Job";
  const variant =
    first?.quality_label !== undefined ? "Quality" : typeof first?.size === "string" ? "Size" : "";
  return (
    <thead>
      <tr>
        {[subject, variant || "Variant", "Status", "Price", "Created", "Files", "Result"].map(
          (h) => (
            <th scope="col">{h}</th>
          ),
        )}
        <th scope="col">Cancel</th>
      </tr>
    </thead>
  );
}

function KindJobs(props: {
  list: JobList;
  pictures: ReadonlyMap<string, JobPictures>;
  csrf: string;
  error: FormError | undefined;
}) {
  const { kind, jobs } = props.list;
  const heading = kind.plural.charAt(0).toUpperCase() + kind.plural.slice(1);
  return (
    <>
      <h2>{heading}</h2>
      {props.list.limits ? <p class="muted limits">{props.list.limits}</p> : null}
      {jobs.length === 0 ? (
        <p class="muted">No {kind.plural} yet.</p>
      ) : (
        <table class={`jobs ${kind.plural}`}>
          <Header jobs={jobs} />
          <tbody>
            {jobs.map((j) => (
              <tr data-job={j.id} id={`job-${j.id}`}>
                <Subject job={j} pictures={props.pictures.get(j.id)} />
                <Variant job={j} />
                <JobStatus job={j} />
                <td data-label="Price">{j.display_price ?? dollars(j.amount_cents)}</td>
                <td data-label="Created">{when(j.created_at)}</td>
                <Expiry job={j} />
                <Result job={j} />
                <Cancel job={j} csrf={props.csrf} error={props.error} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The jobs section: every kind's jobs. */
export function Jobs(props: {
  lists: JobList[];
  pictures: ReadonlyMap<string, JobPictures>;
  csrf: string;
  formError: FormError | undefined;
}) {
  return (
    <section id="jobs">
      <FormErrorText error={props.formError} form="jobs" id="jobs-error" />
      <p class="muted">
        Progress and queue estimates are as of this page's loading:{" "}
        <a href="/console#jobs" id="refresh-jobs">
          refresh
        </a>
        .
      </p>
      {props.lists.map((list) => (
        <KindJobs list={list} pictures={props.pictures} csrf={props.csrf} error={props.formError} />
      ))}
    </section>
  );
}
