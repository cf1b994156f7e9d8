/** The RestoreJob as the API shows it: spec fields plus additive ones; URLs made per request. */

import { at } from "../../../domain/checked-index.js";
import { displayCents } from "../../../domain/money.js";
import { childUnitCounts } from "../../../jobs/children.js";
import { estimateQueue, type QueueEstimate } from "../../../jobs/queue-estimate/read.js";
import { uploadSummaries } from "../../../services/uploads/uploads.js";
import { jobWebhookViews } from "../../../services/webhooks/reads.js";
import type { RestoreJobView } from "../api/schemas.js";
import { RESTORE_DOWNLOAD_URL_SEC } from "../rules/limits.js";
import { PRICE_TABLE } from "../rules/pricing.js";
import { RESTORE_SEGMENT_KIND, type RestoreJobRow, restoreJobs } from "./definition.js";
import type { RestoreDeps } from "./deps.js";

/** A timestamp column as ISO 8601 text; a nullable one stays null when empty. */
function iso(d: Date): string;
function iso(d: Date | null): string | null;
function iso(d: Date | null): string | null {
  return d ? new Date(d).toISOString() : null;
}

function restoredFilename(filename: string): string {
  const base = filename.replace(/\.[A-Za-z0-9]{1,5}$/, "") || "video";
  return `${base}-restored.mp4`;
}

/**
 * Views of several jobs; their queue estimates (the one estimator, knowing every kind's jobs on
 * the workers) cost at most two queries in all, their segments' counts one.
 */
export async function jobViews(p: RestoreDeps, rows: readonly RestoreJobRow[]) {
  const queue = await estimateQueue(p.db, restoreJobs, p.jobKinds.all(), rows, p.clock());
  const hooks = await jobWebhookViews(
    p.db,
    rows.map((r) => r.id),
  );
  // Only a file larger than one upload may have been sent in parts.
  const large = rows.filter((r) => Number(r.size_bytes ?? 0) > p.config.uploads.singleMaxBytes);
  const uploads = await uploadSummaries(
    p,
    large.map((r) => r.input_key),
  );
  // Only a job handed to its segments has units; a done one shows them all done.
  const segments = await childUnitCounts(
    p.db,
    p.jobKinds.all(),
    RESTORE_SEGMENT_KIND,
    rows.filter((r) => r.status === "processing" || r.status === "done").map((r) => r.id),
  );
  return Promise.all(
    rows.map(async (row) => ({
      ...(await viewOf(p, row, queue.get(row.id) ?? null)),
      webhook: hooks.get(row.id) ?? null,
      upload: uploads.get(row.input_key) ?? null,
      segments: segments.get(row.id) ?? null,
    })),
  );
}

/** The view of one job, with its queue estimate while it is processing. */
export async function jobView(p: RestoreDeps, row: RestoreJobRow): Promise<RestoreJobView> {
  return at(await jobViews(p, [row]), 0);
}

async function viewOf(
  p: RestoreDeps,
  row: RestoreJobRow,
  queue: QueueEstimate | null,
): Promise<RestoreJobView> {
  const downloadable = row.status === "done" && row.output_key && !row.files_deleted_at;
  const download_url = downloadable
    ? // cast: a done job always has its output key (the completion wrote both in one update)
      await p.storage.presignDownload(row.output_key as string, {
        expiresInSec: RESTORE_DOWNLOAD_URL_SEC,
        filename: restoredFilename(row.filename),
        contentType: "video/mp4",
      })
    : null;
  return {
    id: row.id,
    status: row.status,
    quality: row.quality,
    quality_label: PRICE_TABLE[row.quality].label,
    fade: row.fade,
    amount_cents: Number(row.amount_cents),
    display_price: displayCents(Number(row.amount_cents)),
    declared_amount_cents: Number(row.declared_amount_cents),
    duration_sec: row.duration_sec,
    measured_duration_sec: row.measured_duration_sec,
    width: row.width,
    height: row.height,
    filename: row.filename,
    content_type: row.content_type,
    size: Number(row.size_bytes ?? 0),
    video_url: row.source_url,
    paid_from_balance: row.paid_from_balance,
    progress: row.status === "done" ? 1 : row.progress,
    download_url,
    error: row.error,
    error_code: row.error_code,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    finished_at: iso(row.finished_at),
    expires_at: iso(row.expires_at),
    queue,
  };
}
