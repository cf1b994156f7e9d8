/**
 * The preview kind's table (migration src/db/migrations/018-restore-previews.sql): the engine's
 * columns and a preview's own. It joins the database's table list (DB) from here.
 */
import type { Generated, Selectable } from "kysely";
import type { JobTable, Timestamp } from "../../../db/schema-columns.js";
import type { FadeHint } from "../../../domain/fade.js";
import type { PreviewStatus } from "../rules/transitions.js";

/** preview_jobs: the engine's columns (a preview always costs 0) and the preview's own. */
export interface PreviewJobsTable extends Omit<JobTable<PreviewStatus>, "wallet_id"> {
  wallet_id: string;
  /** Why the preview failed or was refused, for machines (`too_long`, `video_fetch_failed`…). */
  error_code: string | null;
  input_key: string;
  /** The declared size of an upload; null for a video_url. */
  size_bytes: number | null;
  content_type: string;
  /** The public video_url the worker fetches; null when the caller uploads. */
  source_url: string | null;
  /** What the customer said of the tape's levels (domain/fade.ts); 'auto' for older rows. */
  fade: Generated<FadeHint>;
  upload_expires_at: Timestamp;
  /** What the worker found and made (JSON of PreviewResult), once done. */
  result: string | null;
}

declare module "../../../db/schema.js" {
  interface DB {
    preview_jobs: PreviewJobsTable;
  }
}

/** A row of preview_jobs. */
export type PreviewRow = Selectable<PreviewJobsTable>;
