-- Webhooks (docs/webhooks.md). An event is written in the same transaction as the change that
-- causes it (a job's move, a credit, a charge), with one delivery per subscriber; deliveries are
-- claimed like jobs (FOR UPDATE SKIP LOCKED under a lease) by any node and retried for 3 days.

-- The wallet's default signing secret (signs the deliveries to a job's own webhook_url),
-- sealed with a key derived from SIGNING_SECRET (src/signing.ts): only the server can sign.
CREATE TABLE webhook_secrets (
  wallet_id text PRIMARY KEY REFERENCES wallets (id),
  sealed text NOT NULL,
  created_at timestamptz NOT NULL,
  rotated_at timestamptz
);

-- Endpoints a wallet owner registers: every job of the wallet (and of its agent keys) and the
-- wallet's own events, each signed with the endpoint's own secret.
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets (id),
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  events text[] NOT NULL,
  secret_sealed text NOT NULL,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz,
  -- Set when every delivery failed for the whole retry window; the reason says why.
  disabled_at timestamptz,
  disabled_reason text,
  -- The first failure since the last success: the disabling clock.
  failing_since timestamptz
);
CREATE INDEX webhook_endpoints_wallet_idx ON webhook_endpoints (wallet_id) WHERE deleted_at IS NULL;

-- A job's own webhook_url and event filter, written with the job (any kind: the id says which).
CREATE TABLE job_webhooks (
  job_id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets (id),
  url text NOT NULL,
  events text[] NOT NULL,
  created_at timestamptz NOT NULL
);

-- One row per event: its id is the webhook-id of every delivery and retry of it.
CREATE TABLE webhook_events (
  id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets (id),
  type text NOT NULL,
  job_kind text,
  job_id text,
  -- The status a job event's job entered; the payload is the job as the REST read shows it,
  -- rendered when each attempt is sent (docs/webhooks.md says why).
  job_status text,
  -- Wallet events carry their data as of the event.
  data jsonb,
  -- At most one event per fact (a job's completion, a key's limit at one spent amount).
  dedupe_key text,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX webhook_events_dedupe_idx ON webhook_events (dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX webhook_events_job_idx ON webhook_events (job_id) WHERE job_id IS NOT NULL;
CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);

-- One row per (event, receiver): pending until delivered, or failed for good.
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  event_id text NOT NULL REFERENCES webhook_events (id),
  wallet_id text NOT NULL,
  -- NULL: the job's own webhook_url (signed with the wallet's default secret).
  endpoint_id text REFERENCES webhook_endpoints (id),
  url text NOT NULL,
  state text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  lease_owner text,
  lease_expires_at timestamptz,
  last_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at)
  WHERE endpoint_id IS NOT NULL;
CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at);

-- Every attempt, by the node that claimed it: an attempt number is sent at most once.
CREATE TABLE webhook_attempts (
  delivery_id text NOT NULL REFERENCES webhook_deliveries (id),
  attempt integer NOT NULL,
  node text NOT NULL,
  started_at timestamptz NOT NULL,
  finished_at timestamptz,
  status_code integer,
  error text,
  PRIMARY KEY (delivery_id, attempt)
);
