/**
 * How a preview reads on every surface: its status and, once done, what the worker found with
 * fresh links to its clips and stills (an hour each; every read makes new ones).
 */
import { estimateQueue } from "../../../jobs/queue-estimate/read.js";
import type { PreviewView } from "../api/schemas.js";
import {
  PREVIEW_DOWNLOAD_URL_SEC,
  PREVIEW_QUALITY_LABELS,
  type PreviewQuality,
} from "../rules/transitions.js";
import { type PreviewFile, previewFileKey, previewJobs, previewResultOf } from "./definition.js";
import type { PreviewDeps } from "./deps.js";
import type { PreviewRow } from "./table.js";

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** A fresh link to one of the preview's files, shown in the browser (inline). */
function link(deps: PreviewDeps, id: string, file: PreviewFile, contentType: string) {
  return deps.storage.presignDownload(previewFileKey(id, file), {
    expiresInSec: PREVIEW_DOWNLOAD_URL_SEC,
    contentType,
    inline: true,
  });
}

/** A done preview's findings with links; null before (or after its files were deleted). */
async function findings(deps: PreviewDeps, row: PreviewRow): Promise<PreviewView["preview"]> {
  const result = row.status === "done" ? previewResultOf(row) : null;
  if (!result) return null;
  const quality = async (q: PreviewResult["qualities"][number]) => ({
    quality: q.quality,
    // cast: the column holds only the qualities the create operation validated
    label: PREVIEW_QUALITY_LABELS[q.quality as PreviewQuality],
    words: q.words,
    width: q.width,
    height: q.height,
    clip_url: await link(deps, row.id, q.quality, "video/mp4"),
    after_url: await link(deps, row.id, `${q.quality}-after`, "image/jpeg"),
    pair_url: await link(deps, row.id, `${q.quality}-pair`, "image/jpeg"),
  });
  return {
    duration_sec: result.duration_sec,
    start_sec: result.start_sec,
    length_sec: result.length_sec,
    found: result.found,
    before_url: await link(deps, row.id, "before", "image/jpeg"),
    qualities: await Promise.all(result.qualities.map(quality)),
  };
}

type PreviewResult = NonNullable<ReturnType<typeof previewResultOf>>;

/** The views of several previews, with their queue estimates. */
export async function previewViews(
  deps: PreviewDeps,
  rows: readonly PreviewRow[],
): Promise<PreviewView[]> {
  const queue = await estimateQueue(deps.db, previewJobs, deps.jobKinds.all(), rows, deps.clock());
  return Promise.all(
    rows.map(async (row) => ({
      id: row.id,
      status: row.status,
      price_cents: 0 as const,
      amount_cents: 0 as const,
      progress: row.progress,
      size: row.size_bytes === null ? null : Number(row.size_bytes),
      video_url: row.source_url,
      fade: row.fade,
      error: row.error,
      error_code: row.error_code,
      created_at: new Date(row.created_at).toISOString(),
      updated_at: new Date(row.updated_at).toISOString(),
      finished_at: iso(row.finished_at),
      expires_at: iso(row.status === "awaiting_upload" ? row.upload_expires_at : row.expires_at),
      queue: queue.get(row.id) ?? null,
      preview: await findings(deps, row),
    })),
  );
}

/** One preview's view. */
export async function previewView(deps: PreviewDeps, row: PreviewRow): Promise<PreviewView> {
  const [view] = await previewViews(deps, [row]);
  if (!view) throw new Error("no view of a preview");
  return view;
}
