/** The RestoreJob as the API shows it: spec fields plus additive ones; URLs made per request. */
import { displayCents } from "../../domain/money.js";
import { PRICE_TABLE } from "../../domain/restore/pricing.js";
import type { RestoreDeps } from "./deps.js";
import type { RestoreJobRow } from "./store.js";

/** Download links live an hour; every GET makes a fresh one. */
export const DOWNLOAD_URL_LIFETIME_SEC = 3600;
/** Upload links live 24 hours; after that the job expires and a balance payment is refunded. */
export const UPLOAD_URL_LIFETIME_SEC = 24 * 3600;

export interface RestoreJobView {
  id: string;
  status: RestoreJobRow["status"];
  quality: RestoreJobRow["quality"];
  quality_label: string;
  amount_cents: number;
  display_price: string;
  duration_sec: number;
  measured_duration_sec: number | null;
  width: number | null;
  height: number | null;
  filename: string;
  content_type: string;
  size: number;
  paid_from_balance: boolean;
  progress: number | null;
  download_url: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  expires_at: string;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function restoredFilename(filename: string): string {
  const base = filename.replace(/\.[A-Za-z0-9]{1,5}$/, "") || "video";
  return `${base}-restored.mp4`;
}

export async function jobView(p: RestoreDeps, row: RestoreJobRow): Promise<RestoreJobView> {
  const downloadable = row.status === "done" && row.output_key && !row.files_deleted_at;
  const download_url = downloadable
    ? await p.storage.presignDownload(row.output_key as string, {
        expiresInSec: DOWNLOAD_URL_LIFETIME_SEC,
        filename: restoredFilename(row.filename),
        contentType: "video/mp4",
      })
    : null;
  return {
    id: row.id,
    status: row.status,
    quality: row.quality,
    quality_label: PRICE_TABLE[row.quality].label,
    amount_cents: Number(row.amount_cents),
    display_price: displayCents(Number(row.amount_cents)),
    duration_sec: row.duration_sec,
    measured_duration_sec: row.measured_duration_sec,
    width: row.width,
    height: row.height,
    filename: row.filename,
    content_type: row.content_type,
    size: Number(row.size_bytes),
    paid_from_balance: row.paid_from_balance,
    progress: row.status === "done" ? 1 : row.progress,
    download_url,
    error: row.error,
    created_at: iso(row.created_at) as string,
    updated_at: iso(row.updated_at) as string,
    finished_at: iso(row.finished_at),
    expires_at: iso(row.expires_at) as string,
  };
}
