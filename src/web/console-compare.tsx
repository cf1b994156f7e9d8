/**
 * A done restore's pictures, to the signed-in owner of the job only: the small before/after
 * still of the job list, and the full-size comparison — one frame of the video before and after,
 * each at the result's own size and shown 1:1, side by side and one over the other (a divider
 * moved without a script: a CSS resize handle). Pictures are read from storage here, never
 * handed out as storage links, which anyone holding one could open.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { AppEnv } from "../http/env.js";
import type { Router } from "../http/router.js";
import { restoreFrameKey, restoreStillKey } from "../kinds/restore/services/definition.js";
import type { Platform } from "../services/platform.js";
import { jpegSize } from "./jpeg-size.js";
import { Page } from "./layout.js";
import { Owned, ownedText } from "./owned-text.js";
import { readSession } from "./session.js";

/** What the picture routes borrow from the console: the platform and its page headers. */
export interface CompareDeps {
  platform: Platform;
  page(c: Context<AppEnv>, node: JSX.Element, status?: 200 | 404): Response;
}

const FRAMES = ["before", "after"] as const;
type Which = (typeof FRAMES)[number];

/** The signed-in owner's done restore `id` (its file name), or null. */
async function ownDoneRestore(web: Platform, c: Context<AppEnv>) {
  const session = await readSession(web, c);
  if (!session) return { session: null, job: null };
  const id = c.req.param("id") ?? "";
  const job = /^rj_[A-Za-z0-9_-]{1,100}$/.test(id)
    ? await web.db
        .selectFrom("restore_jobs")
        .select(["id", "filename"])
        .where("id", "=", id)
        .where("wallet_id", "=", session.walletId)
        .where("status", "=", "done")
        .executeTakeFirst()
    : undefined;
  return { session, job: job ?? null };
}

/** The bytes stored at `key`, or null when nothing is. */
async function readStored(web: Platform, key: string): Promise<Buffer | null> {
  if (!(await web.storage.head(key))) return null;
  const dir = await mkdtemp(path.join(tmpdir(), "kinora-picture-"));
  try {
    const file = path.join(dir, "picture.jpg");
    await web.storage.downloadToFile(key, file);
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const jpeg = (c: Context<AppEnv>, body: Buffer) =>
  c.body(new Uint8Array(body), 200, {
    "content-type": "image/jpeg",
    "cache-control": "private, max-age=300",
    "x-content-type-options": "nosniff",
  });

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

/** The still (job list), the full-size frames, and the page that compares them. */
export function registerCompareRoutes(app: Router, deps: CompareDeps) {
  const web = deps.platform;

  app.get("/console/jobs/:id/still", async (c) => {
    const { session, job } = await ownDoneRestore(web, c);
    if (!session) return c.text("Sign in to the console first.", 401);
    const body = job ? await readStored(web, restoreStillKey(job.id)) : null;
    return body ? jpeg(c, body) : c.text("No such still.", 404);
  });

  app.get("/console/jobs/:id/frame/:which", async (c) => {
    const { session, job } = await ownDoneRestore(web, c);
    if (!session) return c.text("Sign in to the console first.", 401);
    const which = c.req.param("which") as Which;
    if (!job || !FRAMES.includes(which)) return c.text("No such frame.", 404);
    const body = await readStored(web, restoreFrameKey(job.id, which));
    return body ? jpeg(c, body) : c.text("No such frame.", 404);
  });

  app.get("/console/jobs/:id/compare", async (c) => {
    const { session, job } = await ownDoneRestore(web, c);
    if (!session) return c.redirect("/console", 303);
    const after = job ? await readStored(web, restoreFrameKey(job.id, "after")) : null;
    const size = after ? jpegSize(after) : null;
    if (!job || !size || !(await web.storage.head(restoreFrameKey(job.id, "before")))) {
      const missing = (
        <Page title="Before and after">
          <h1>No full-size comparison</h1>
          <p>
            This restore has no full-size frames: it is not done, not yours, its files were deleted
            after their retention, or the worker that ran it made none.
          </p>
          <p>
            <a href="/console#jobs">Back to the console</a>
          </p>
        </Page>
      );
      return deps.page(c, missing, 404);
    }
    return deps.page(c, <ComparePage id={job.id} filename={job.filename} size={size} />);
  });
}
