/** Kysely table types, kept in step with ./migrations by hand (one place, reviewed with them). */
import type { ColumnType, Generated } from "kysely";

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;

export interface WalletsTable {
  id: string;
  key_hash: string;
  email: string | null;
  balance_cents: Generated<number>;
  paused: Generated<boolean>;
  paused_reason: string | null;
  created_at: Timestamp;
}

export interface AgentKeysTable {
  id: string;
  wallet_id: string;
  key_hash: string;
  label: Generated<string>;
  kind: Generated<"agent" | "connected_app">;
  limit_cents: number;
  spent_cents: Generated<number>;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export type LedgerKind = "charge" | "refund" | "topup" | "adjustment" | "payout";

export interface LedgerEntriesTable {
  id: Generated<number>;
  wallet_id: string;
  agent_key_id: string | null;
  kind: LedgerKind;
  amount_cents: number;
  key_amount_cents: Generated<number>;
  job_id: string | null;
  reference: string | null;
  reason: string;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  scope: string;
  idem_key: string;
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  response_headers: string | null;
  created_at: Timestamp;
}

export type RestoreStatus =
  | "pending_payment"
  | "awaiting_upload"
  | "queued"
  | "processing"
  | "done"
  | "failed"
  | "refunded"
  | "cancelled"
  | "expired";

export interface RestoreJobsTable {
  id: string;
  wallet_id: string | null;
  agent_key_id: string | null;
  email: string | null;
  status: RestoreStatus;
  quality: "faithful" | "enhanced" | "enhanced_max";
  amount_cents: number;
  duration_sec: number;
  measured_duration_sec: number | null;
  width: number | null;
  height: number | null;
  filename: string;
  content_type: string;
  size_bytes: number;
  paid_from_balance: boolean;
  payment_ref: string | null;
  progress: number | null;
  error: string | null;
  attempts: Generated<number>;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  input_key: string;
  output_key: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  queued_at: NullableTimestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  expires_at: Timestamp;
  files_deleted_at: NullableTimestamp;
}

export interface RestoreCardRefundsTable {
  job_id: string;
  amount_cents: number;
  reason: string;
  created_at: Timestamp;
  processed_at: NullableTimestamp;
  provider_refund_id: string | null;
}

export type ClipStatus =
  | "awaiting_upload"
  | "queued"
  | "processing"
  | "done"
  | "failed"
  | "refused"
  | "expired"
  | "cancelled";

export interface ClipsTable {
  id: string;
  wallet_id: string;
  agent_key_id: string | null;
  status: ClipStatus;
  size: "480p" | "720p";
  seconds: number;
  prompt: string;
  loop: boolean;
  seed: number;
  amount_cents: number;
  content_type: string;
  image_bytes: number | null;
  image_url: string | null;
  error: string | null;
  refusal_code: string | null;
  attempts: Generated<number>;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  progress: number | null;
  image_key: string;
  output_key: string | null;
  output_bytes: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  queued_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  upload_expires_at: Timestamp;
  expires_at: NullableTimestamp;
  files_deleted_at: NullableTimestamp;
}

export interface DB {
  wallets: WalletsTable;
  agent_keys: AgentKeysTable;
  ledger_entries: LedgerEntriesTable;
  idempotency_keys: IdempotencyKeysTable;
  clips: ClipsTable;
  restore_jobs: RestoreJobsTable;
  restore_card_refunds: RestoreCardRefundsTable;
}
