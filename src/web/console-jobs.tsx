/**
 * The console's jobs section: restores and clips with their status in words (queue place,
 * progress and the server's estimate), how long their files are kept, and their results.
 */
import type { ClipView } from "../kinds/clips/api/schemas.js";
import type { RestoreJobView } from "../kinds/restore/api/schemas.js";
import { dollars, etaWords, when } from "./console-format.js";
import { Owned, ownedText } from "./owned-text.js";

const ordinal = (n: number) => {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${s}`;
};

/** Where a job stands, as the `kinora` client words it: "next in the queue", "3rd in the queue". */
const place = (queue: NonNullable<RestoreJobView["queue"]>) => {
  if (queue.state === "running") return "a worker is running it";
  return queue.position <= 1 ? "next in the queue" : `${ordinal(queue.position)} in the queue`;
};

/** Status with progress and the server's queue estimate, for a job of either kind. */
function JobStatus(props: {
  status: string;
  progress: number | null;
  queue: RestoreJobView["queue"] | ClipView["queue"];
}) {
  const { status, progress, queue } = props;
  // A restore waiting for a worker is `processing` by the spec: it says queued, with its place.
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
function Expiry(props: { status: string; expiresAt: string | null }) {
  const { status, expiresAt } = props;
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

/** The small still; with full-size frames, a link to their comparison. */
function Still(props: { id: string; filename: string; full: boolean }) {
  const img = (
    <img
      src={`/console/jobs/${props.id}/still`}
      width={480}
      alt={`The same frame of ${ownedText(props.filename)} before (left) and after (right) the restore`}
    />
  );
  return props.full ? (
    <a href={`/console/jobs/${props.id}/compare`} tabindex={-1}>
      {img}
    </a>
  ) : (
    img
  );
}

function Result(props: { url: string | null | undefined; error: string | null; what: string }) {
  return (
    <td data-label="Result">
      {props.url ? (
        <a href={props.url}>
          Download<span class="sr"> {props.what}</span>
        </a>
      ) : (
        (props.error ?? "")
      )}
    </td>
  );
}

export function Jobs(props: {
  restores: RestoreJobView[];
  clips: ClipView[];
  stills: Set<string>;
  /** Done restores with full-size frames: their still links to the comparison. */
  frames: Set<string>;
}) {
  return (
    <section id="jobs">
      <h2>Restore jobs</h2>
      <p class="muted">
        Progress and queue estimates are as of this page's loading:{" "}
        <a href="/console#jobs" id="refresh-jobs">
          refresh
        </a>
        .
      </p>
      {props.restores.length === 0 ? (
        <p class="muted">No restores yet.</p>
      ) : (
        <table class="jobs restores">
          <thead>
            <tr>
              <th scope="col">Video</th>
              <th scope="col">Quality</th>
              <th scope="col">Status</th>
              <th scope="col">Price</th>
              <th scope="col">Created</th>
              <th scope="col">Files</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {props.restores.map((j) => (
              <tr data-job={j.id}>
                <td data-label="Video" class="video">
                  <Owned text={j.filename} />
                  {props.stills.has(j.id) ? (
                    <figure class="still">
                      <Still id={j.id} filename={j.filename} full={props.frames.has(j.id)} />
                      <figcaption class="muted">
                        before · after
                        {props.frames.has(j.id) ? (
                          <>
                            {" · "}
                            <a href={`/console/jobs/${j.id}/compare`} class="compare">
                              compare at full size
                              <span class="sr"> ({ownedText(j.filename)})</span>
                            </a>
                          </>
                        ) : null}
                      </figcaption>
                    </figure>
                  ) : null}
                </td>
                <td data-label="Quality">{j.quality_label}</td>
                <JobStatus status={j.status} progress={j.progress} queue={j.queue} />
                <td data-label="Price">{j.display_price}</td>
                <td data-label="Created">{when(j.created_at)}</td>
                <Expiry status={j.status} expiresAt={j.expires_at} />
                <Result url={j.download_url} error={j.error} what={ownedText(j.filename)} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Clips</h2>
      {props.clips.length === 0 ? (
        <p class="muted">No clips yet.</p>
      ) : (
        <table class="jobs clips">
          <thead>
            <tr>
              <th scope="col">Prompt</th>
              <th scope="col">Size</th>
              <th scope="col">Status</th>
              <th scope="col">Price</th>
              <th scope="col">Created</th>
              <th scope="col">Files</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {props.clips.map((j) => (
              <tr data-job={j.id}>
                <td data-label="Prompt">
                  <Owned text={j.prompt.slice(0, 60)} />
                </td>
                <td data-label="Size">{j.size}</td>
                <JobStatus status={j.status} progress={j.progress} queue={j.queue} />
                <td data-label="Price">{dollars(j.amount_cents)}</td>
                <td data-label="Created">{when(j.created_at)}</td>
                <Expiry status={j.status} expiresAt={j.expires_at} />
                <Result url={j.download_url} error={j.error} what={`clip ${j.id}`} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
