/**
 * A done preview in the console, to the signed-in owner only, read through its kind's read
 * operation (the one REST serves) as the owner's wallet key: for each quality the plan in words
 * and the excerpt's middle frame before and after, one over the other — the before frame covers
 * the left of the after one, and its handle moves the divide (a CSS resize handle, no script) —
 * with links to the restored clip and the side-by-side still. No kind is named here: a job whose
 * read answers a `preview` (its findings and links) has this page.
 */
import type { Context } from "hono";
import type { AppEnv } from "../http/env.js";
import type { Router } from "../http/router.js";
import { kindOfId } from "../operations/kinds.js";
import { type ConsoleKit, page, signedIn } from "./console-kit.js";
import { Page } from "./layout.js";
import { type Caller, callOperation } from "./operation-client.js";

/** One quality of a preview, as its read answers it. */
interface QualityView {
  quality: string;
  label: string;
  words: string[];
  width: number;
  height: number;
  clip_url: string;
  after_url: string;
  pair_url: string;
}

/** A done preview's findings, as its read answers them. */
export interface PreviewFindings {
  start_sec: number;
  length_sec: number;
  duration_sec: number;
  found: string[];
  before_url: string;
  qualities: QualityView[];
}

const secs = (x: number) => `${Math.round(x * 10) / 10} s`;

/** One quality: the plan in words and the before/after slider at the result's size. */
function QualityPreview(props: { q: QualityView; before: string }) {
  const { q, before } = props;
  const { width, height } = q;
  return (
    <section id={`quality-${q.quality}`}>
      <h2>{q.label}</h2>
      <ul class="words">
        {q.words.map((w) => (
          <li>{w}</li>
        ))}
      </ul>
      <div class="scroll">
        <div class="wipe" style={`width:${width}px;height:${height}px`}>
          <img src={q.after_url} width={width} height={height} alt={`After, at ${q.label}`} />
          <div class="wipe-before">
            <img src={before} width={width} height={height} alt="Before" />
          </div>
        </div>
      </div>
      <p class="muted">
        {width}×{height} px · <a href={q.pair_url}>side by side</a> ·{" "}
        <a href={q.clip_url}>the restored excerpt</a>
      </p>
    </section>
  );
}

/** The preview page: where the excerpt is, what was found there, and each quality. */
export function PreviewPage(props: { id: string; p: PreviewFindings }) {
  const { p } = props;
  return (
    <Page title="Preview of a restore" full>
      <p>
        <a href="/console#jobs" id="back">
          ← Back to the console
        </a>
      </p>
      <h1>Preview: what each quality would do</h1>
      <p id="excerpt">
        {secs(p.length_sec)} from {secs(p.start_sec)} of {secs(p.duration_sec)}, where the analysis
        found the most damage: {p.found.join("; ")}. Drag the handle at the bottom right of the
        before frame to move the divide.
      </p>
      {p.qualities.map((q) => (
        <QualityPreview q={q} before={p.before_url} />
      ))}
    </Page>
  );
}

const NoPreview = () => (
  <Page title="Preview">
    <h1>No preview</h1>
    <p>This job has no preview: it is not done, not yours, or its files were deleted.</p>
    <p>
      <a href="/console#jobs">Back to the console</a>
    </p>
  </Page>
);

/** The preview of job `id`, read as the caller; or the page saying there is none. */
async function previewOf(kit: ConsoleKit, c: Context<AppEnv>, caller: Caller, id: string) {
  const kind = kindOfId(kit.surface.kinds, id);
  if (!kind) return page(kit, c, <NoPreview />, 404);
  const read = await callOperation(kit.surface, c, {
    contract: kind.get.contract,
    input: { job_id: id },
    caller,
  });
  const p = read.ok
    ? // cast: an ok answer of a kind's get contract is {job}; only its preview is read, and it may be absent
      (read.body as { job?: { preview?: PreviewFindings | null } }).job?.preview
    : null;
  if (!p) return page(kit, c, <NoPreview />, 404);
  const links = [p.before_url, ...p.qualities.map((q) => q.after_url)];
  const origins = [...new Set(links.map((u) => new URL(u).origin))];
  return page(kit, c, <PreviewPage id={id} p={p} />, 200, origins);
}

/** GET /console/jobs/:id/preview: the signed-in owner's preview page. */
export function registerPreviewRoutes(app: Router, kit: ConsoleKit) {
  app.get("/console/jobs/:id/preview", async (c) => {
    const s = await signedIn(kit, c);
    if ("answer" in s) return s.answer;
    if (!s.caller) return c.redirect("/console", 303);
    return previewOf(kit, c, s.caller, c.req.param("id"));
  });
}
