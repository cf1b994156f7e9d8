/**
 * The restore kind's tables (migrations in src/db/migrations): its jobs, and the outbox of card
 * refunds for restores paid by checkout. They join the database's table list (DB) from here.
 */
import type { Generated } from "kysely";
import type { JobTable, NullableTimestamp, Timestamp } from "../../../db/schema-columns.js";
import type { FadeHint } from "../../../domain/fade.js";
import type { RestoreQuality } from "../rules/pricing.js";
import type { RestoreStatus } from "../rules/transitions.js";

/** restore_jobs: the engine's columns and the restore's own. */
export interface RestoreJobsTable extends Omit<JobTable<RestoreStatus>, "expires_at"> {
  email: string | null;
  quality: RestoreQuality;
  /** What the customer said of the tape's levels (domain/fade.ts); 'auto' for older rows. */
  fade: Generated<FadeHint>;
  /** What the job costs: the declared length's price, lowered to the measured length's. */
  amount_cents: number;
  /** What was charged at creation, for the declared length. */
  declared_amount_cents: number;
  duration_sec: number;
  measured_duration_sec: number | null;
  width: number | null;
  height: number | null;
  filename: string;
  content_type: string;
  /** Null until a video_url job's file is fetched. */
  size_bytes: number | null;
  /** The public video_url a worker fetches; null when the caller uploads. */
  source_url: string | null;
  paid_from_balance: boolean;
  payment_ref: string | null;
  /** Why the job failed or was refunded, for machines (rules/job-errors.ts). */
  error_code: string | null;
  input_key: string;
  output_key: string | null;
  /** The upload deadline while it waits for its file, then when its files go. */
  expires_at: Timestamp;
}

/** restore_card_refunds: the outbox of card refunds for restores paid by checkout. */
export interface RestoreCardRefundsTable {
  job_id: string;
  /** refund: what is left of the price when the job fails; measured: the measured difference. */
  kind: Generated<"refund" | "measured">;
  amount_cents: number;
  reason: string;
  created_at: Timestamp;
  processed_at: NullableTimestamp;
  provider_refund_id: string | null;
}

declare module "../../../db/schema.js" {
  interface DB {
    restore_jobs: RestoreJobsTable;
    restore_card_refunds: RestoreCardRefundsTable;
  }
}
