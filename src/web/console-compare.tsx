/**
 * A done job's pictures, to the signed-in owner of the job only, through its kind's pictures
 * operation (GET /cloud/jobs/{id}/pictures for a restore) run as the owner's wallet key: the
 * small before/after still of the job list, and the full-size comparison — one frame of the
 * video before and after, each at the result's own size and shown 1:1, side by side and one
 * over the other (a divider moved without a script: a CSS resize handle). The pictures' console
 * links answer with a redirect to the operation's expiring storage links, so the page itself
 * never holds one and only a signed-in owner's browser is led to them.
 */
import type { Context } from "hono";
import type { AppEnv } from "../http/env.js";
import type { Router } from "../http/router.js";
import { kindOfId } from "../operations/kinds.js";
import { type ConsoleKit, page, signedIn } from "./console-kit.js";
import { Page } from "./layout.js";
import { type Caller, callOperation } from "./operation-client.js";
import { Owned, ownedText } from "./owned-text.js";

const FRAMES = ["before", "after"] as const;
type Which = (typeof FRAMES)[number];

/** A link that expires, as the pictures operation gives it. */
interface Link {
  url: string;
}

/** What a kind's pictures operation answers. */
interface Pictures {
  still: Link | null;
  frames: { before: Link; after: Link; width: number; height: number } | null;
}

/** The pictures of job `id` (the caller's, done), or null: not the caller's, not done, none. */
async function picturesOf(kit: ConsoleKit, c: Context<AppEnv>, caller: Caller, id: string) {
  const kind = kindOfId(kit.surface.kinds, id);
  const contract = kind ? kit.surface.pictures(kind) : undefined;
  if (!kind || !contract) return null;
  const answer = await callOperation(kit.surface, c, {
    contract,
    input: { job_id: id },
    caller,
  });
  // cast: an ok answer of the pictures contract is its Pictures output
  return answer.ok ? { kind, pictures: answer.body as Pictures } : null;
}

/** Sends the browser on to a picture's expiring link (or says there is none). */
function toPicture(c: Context<AppEnv>, link: Link | null | undefined, what: string) {
  if (!link) return c.text(`No such ${what}.`, 404);
  c.header("cache-control", "no-store");
  c.header("referrer-policy", "no-referrer");
  return c.redirect(link.url, 303);
}

/** The comparison page: both frames at their size, side by side and one over the other. */
export function ComparePage(props: {
  id: string;
  filename: string;
  size: { width: number; height: number };
}) {
  const { id, filename } = props;
  const { width, height } = props.size;
  const src = (which: Which) => `/console/jobs/${id}/frame/${which}`;
  const picture = (which: Which, alt: string) => (
    <img id={which} src={src(which)} width={width} height={height} alt={alt} />
  );
  const name = ownedText(filename);
  return (
    <Page title={`Before and after · ${name}`} full>
      <p>
        <a href="/console#jobs" id="back">
          ← Back to the console
        </a>
      </p>
      <h1>
        Before and after: <Owned text={filename} />
      </h1>
      <p class="muted" id="frame-facts">
        One frame from the middle of the video at the result's size, {width}×{height} px, shown
        pixel for pixel. The before frame is your video's, scaled to that size. Open each on its
        own: <a href={src("before")}>before</a> · <a href={src("after")}>after</a>.
      </p>
      <h2>Side by side</h2>
      <div class="pair">
        <figure>
          <figcaption>Before</figcaption>
          {picture("before", `The frame of ${name} before the restore`)}
        </figure>
        <figure>
          <figcaption>After</figcaption>
          {picture("after", `The same frame of ${name} after the restore`)}
        </figure>
      </div>
      <h2>One over the other</h2>
      <p class="muted">
        The before frame covers the left half of the after one: drag the handle at the bottom right
        of the before frame to move the divide.
      </p>
      <div class="scroll">
        <div class="wipe" style={`width:${width}px;height:${height}px`}>
          <img src={src("after")} width={width} height={height} alt="" />
          <div class="wipe-before" id="wipe-before">
            <img src={src("before")} width={width} height={height} alt="" />
          </div>
        </div>
      </div>
    </Page>
  );
}

/** The page when a job has no full-size comparison (not done, not yours, gone, never made). */
const NoComparison = () => (
  <Page title="Before and after">
    <h1>No full-size comparison</h1>
    <p>
      This job has no full-size frames: it is not done, not yours, its files were deleted after
      their retention, or the worker that ran it made none.
    </p>
    <p>
      <a href="/console#jobs">Back to the console</a>
    </p>
  </Page>
);

/** The comparison of job `id`'s frames, or the page saying there is none. */
async function comparison(kit: ConsoleKit, c: Context<AppEnv>, caller: Caller, id: string) {
  const found = await picturesOf(kit, c, caller, id);
  const frames = found?.pictures.frames;
  if (!found || !frames) return page(kit, c, <NoComparison />, 404);
  const read = await callOperation(kit.surface, c, {
    contract: found.kind.get.contract,
    input: { job_id: id },
    caller,
  });
  // cast: an ok answer of a kind's get contract is {job}; only the filename is read, and it may be absent
  const job = read.ok ? (read.body as { job?: { filename?: string } }).job : undefined;
  const origins = [...new Set([frames.before.url, frames.after.url].map((u) => new URL(u).origin))];
  const node = <ComparePage id={id} filename={job?.filename ?? id} size={frames} />;
  return page(kit, c, node, 200, origins);
}

/** The still (job list), the full-size frames, and the page that compares them. */
export function registerCompareRoutes(app: Router, kit: ConsoleKit) {
  app.get("/console/jobs/:id/still", async (c) => {
    const s = await signedIn(kit, c);
    if ("answer" in s) return s.answer;
    if (!s.caller) return c.text("Sign in to the console first.", 401);
    const found = await picturesOf(kit, c, s.caller, c.req.param("id"));
    return toPicture(c, found?.pictures.still, "still");
  });

  app.get("/console/jobs/:id/frame/:which", async (c) => {
    const s = await signedIn(kit, c);
    if ("answer" in s) return s.answer;
    if (!s.caller) return c.text("Sign in to the console first.", 401);
    // cast: checked against FRAMES on the next line (404 for anything else)
    const which = c.req.param("which") as Which;
    if (!FRAMES.includes(which)) return c.text("No such frame.", 404);
    const found = await picturesOf(kit, c, s.caller, c.req.param("id"));
    return toPicture(c, found?.pictures.frames?.[which], "frame");
  });

  app.get("/console/jobs/:id/compare", async (c) => {
    const s = await signedIn(kit, c);
    if ("answer" in s) return s.answer;
    if (!s.caller) return c.redirect("/console", 303);
    return comparison(kit, c, s.caller, c.req.param("id"));
  });
}
