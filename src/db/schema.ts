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

export interface DB {
  wallets: WalletsTable;
  agent_keys: AgentKeysTable;
  ledger_entries: LedgerEntriesTable;
  idempotency_keys: IdempotencyKeysTable;
}
