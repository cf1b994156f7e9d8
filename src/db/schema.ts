/**
 * Kysely table types, kept in step with ./migrations by hand (reviewed with them): wallets,
 * keys, ledger and sign-ins here; payments, uploads and webhooks in their own files, gathered in
 * DB below and re-exported. Each job kind's tables are typed in its own folder and join DB from
 * there.
 */
import type { ColumnType, Generated } from "kysely";
import type { NullableTimestamp, Timestamp } from "./schema-columns.js";
import type {
  CheckoutsTable,
  PaymentEventsTable,
  TestCheckoutRefundsTable,
  UsdcPaymentsTable,
  UsdcRefundsTable,
} from "./schema-payments.js";
import type { MultipartUploadPartsTable, MultipartUploadsTable } from "./schema-uploads.js";
import type {
  JobWebhooksTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookEventsTable,
  WebhookSecretsTable,
} from "./schema-webhooks.js";

export type * from "./schema-payments.js";
export type * from "./schema-uploads.js";
export type * from "./schema-webhooks.js";

/** wallets: balance in cents, the wallet key's hash, the pause flag. */
export interface WalletsTable {
  id: string;
  key_hash: string;
  email: string | null;
  balance_cents: Generated<number>;
  paused: Generated<boolean>;
  paused_reason: string | null;
  created_at: Timestamp;
}

/** agent_keys: a wallet's agent keys and connected apps, with limit and spent. */
export interface AgentKeysTable {
  id: string;
  wallet_id: string;
  key_hash: string;
  label: Generated<string>;
  kind: Generated<"agent" | "connected_app">;
  limit_cents: number;
  ask_before_spending: Generated<boolean>;
  /** Owner's threshold (020-ask-above.sql): a key that asks does not ask at or below it. */
  ask_above_cents: number | null;
  /** Connected apps only: the OAuth client and the host its redirect goes to. */
  client_id: string | null;
  redirect_host: string | null;
  spent_cents: Generated<number>;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export type LedgerKind = "charge" | "refund" | "topup" | "adjustment" | "payout" | "key_limit";

/** ledger_entries: every change of a balance, append-only. */
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

/** idempotency_keys: the first answer of a call made with an idempotency key. */
export interface IdempotencyKeysTable {
  scope: string;
  idem_key: string;
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  response_headers: string | null;
  created_at: Timestamp;
}

/** rate_limits: a count per bucket and window. */
export interface RateLimitsTable {
  bucket: string;
  window_start: Timestamp;
  count: number;
}

/** oauth_clients: registered MCP clients and metadata-document clients. */
export interface OAuthClientsTable {
  id: string;
  kind: "registered" | "metadata_document";
  client_name: string;
  /** JSON array of exact redirect URIs. */
  redirect_uris: string;
  client_uri: string | null;
  created_at: Timestamp;
  fetched_at: NullableTimestamp;
  registered_from: string | null;
}

/** oauth_codes: authorization codes (hashed), single use. */
export interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  agent_key_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scope: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

/** oauth_tokens: access and refresh tokens (hashed) of connected apps. */
export interface OAuthTokensTable {
  token_hash: string;
  kind: "access" | "refresh";
  family_id: string;
  client_id: string;
  agent_key_id: string;
  resource: string;
  scope: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  rotated_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

/** web_sessions: console sign-ins (hashed ids). */
export interface WebSessionsTable {
  id_hash: string;
  wallet_id: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  /** The wallet key, sealed under a key derived from the session cookie (016-web-session-key). */
  key_sealed: ColumnType<string | null, string | null | undefined, string | null>;
}

// Payments (migration 004-payments.sql and later).

/**
 * Every table, for Kysely. A job kind's tables join it from the kind's own folder
 * (src/kinds/<kind>/services/tables.ts declares them into this interface), so nothing here
 * names a kind.
 */
export interface DB {
  wallets: WalletsTable;
  agent_keys: AgentKeysTable;
  ledger_entries: LedgerEntriesTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limits: RateLimitsTable;
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  web_sessions: WebSessionsTable;
  checkouts: CheckoutsTable;
  payment_events: PaymentEventsTable;
  test_checkout_refunds: TestCheckoutRefundsTable;
  usdc_payments: UsdcPaymentsTable;
  usdc_refunds: UsdcRefundsTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_endpoints: WebhookEndpointsTable;
  job_webhooks: JobWebhooksTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  multipart_uploads: MultipartUploadsTable;
  multipart_upload_parts: MultipartUploadPartsTable;
}
