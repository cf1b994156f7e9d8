/** Table types of webhooks: signing secrets, endpoints, job webhooks, events, deliveries, attempts. */
import type { ColumnType, Generated } from "kysely";
import type { NullableTimestamp, Timestamp } from "./schema-columns.js";

/** webhook_secrets: each wallet's default signing secret (sealed). */
export interface WebhookSecretsTable {
  wallet_id: string;
  /** The wallet's default signing secret, sealed (signing.ts): never stored in clear. */
  sealed: string;
  created_at: Timestamp;
  rotated_at: NullableTimestamp;
}

/** webhook_endpoints: a wallet's registered receivers. */
export interface WebhookEndpointsTable {
  id: string;
  wallet_id: string;
  url: string;
  description: Generated<string>;
  events: string[];
  secret_sealed: string;
  created_at: Timestamp;
  deleted_at: NullableTimestamp;
  disabled_at: NullableTimestamp;
  disabled_reason: string | null;
  failing_since: NullableTimestamp;
}

/** job_webhooks: a job's own webhook_url and events (any kind). */
export interface JobWebhooksTable {
  job_id: string;
  wallet_id: string;
  url: string;
  events: string[];
  created_at: Timestamp;
}

/** webhook_events: events written in the transaction of their cause. */
export interface WebhookEventsTable {
  id: string;
  wallet_id: string;
  type: string;
  job_kind: string | null;
  job_id: string | null;
  job_status: string | null;
  data: unknown;
  dedupe_key: string | null;
  created_at: Timestamp;
}

export type WebhookDeliveryState = "pending" | "delivered" | "failed" | "cancelled";

/** webhook_deliveries: one event to one receiver, claimed with a lease and retried. */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  wallet_id: string;
  endpoint_id: string | null;
  url: string;
  state: ColumnType<WebhookDeliveryState, WebhookDeliveryState | undefined, WebhookDeliveryState>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  last_attempt_at: NullableTimestamp;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: NullableTimestamp;
  created_at: Timestamp;
}

/** webhook_attempts: each try of a delivery and its answer. */
export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  node: string;
  started_at: Timestamp;
  finished_at: NullableTimestamp;
  status_code: number | null;
  error: string | null;
}
