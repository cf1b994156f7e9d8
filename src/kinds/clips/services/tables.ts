/**
 * The clip kind's table (migrations in src/db/migrations), joining the database's table list
 * (DB) from here.
 */
import type { JobTable, Timestamp } from "../../../db/schema-columns.js";
import type { ClipSize } from "../rules/rules.js";
import type { ClipStatus } from "../rules/transitions.js";

/** clips: the engine's columns and the clip's own. */
export interface ClipsTable extends Omit<JobTable<ClipStatus>, "wallet_id"> {
  /** Every clip is paid from a wallet. */
  wallet_id: string;
  size: ClipSize;
  seconds: number;
  prompt: string;
  loop: boolean;
  seed: number;
  content_type: string;
  image_bytes: number | null;
  image_url: string | null;
  refusal_code: string | null;
  image_key: string;
  output_key: string | null;
  output_bytes: number | null;
  upload_expires_at: Timestamp;
}

declare module "../../../db/schema.js" {
  interface DB {
    clips: ClipsTable;
  }
}
