-- Cloud restore jobs. Every status change is a conditional UPDATE … WHERE status = expected
-- (see src/domain/restore/transitions.ts); the worker lease lives on the row.

CREATE TABLE restore_jobs (
  id text PRIMARY KEY,
  wallet_id text REFERENCES wallets(id),
  agent_key_id text REFERENCES agent_keys(id),
  email text,
  status text NOT NULL CHECK (status IN ('pending_payment', 'awaiting_upload', 'queued',
    'processing', 'done', 'failed', 'refunded', 'cancelled', 'expired')),
  quality text NOT NULL CHECK (quality IN ('faithful', 'enhanced', 'enhanced_max')),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  duration_sec double precision NOT NULL CHECK (duration_sec > 0),
  measured_duration_sec double precision,
  width integer,
  height integer,
  filename text NOT NULL,
  content_type text NOT NULL,
  size_bytes bigint NOT NULL CHECK (size_bytes > 0),
  paid_from_balance boolean NOT NULL,
  payment_ref text,
  progress double precision,
  error text,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL CHECK (max_attempts >= 1),
  lease_owner text,
  lease_expires_at timestamptz,
  input_key text NOT NULL,
  output_key text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  queued_at timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  expires_at timestamptz NOT NULL,
  files_deleted_at timestamptz,
  CHECK (NOT paid_from_balance OR wallet_id IS NOT NULL),
  CHECK (wallet_id IS NOT NULL OR email IS NOT NULL)
);

-- Claimable jobs: processing without a lease, oldest first.
CREATE INDEX restore_jobs_claimable_idx ON restore_jobs (queued_at)
  WHERE status = 'processing' AND lease_expires_at IS NULL;
CREATE INDEX restore_jobs_leased_idx ON restore_jobs (lease_expires_at)
  WHERE status = 'processing' AND lease_expires_at IS NOT NULL;
CREATE INDEX restore_jobs_status_idx ON restore_jobs (status, created_at);
CREATE INDEX restore_jobs_wallet_idx ON restore_jobs (wallet_id, created_at);

-- Outbox of card refunds: a checkout-paid job that fails or is refused is inserted here in the
-- same transaction as its status change; the payments side refunds it at the provider.
CREATE TABLE restore_card_refunds (
  job_id text PRIMARY KEY REFERENCES restore_jobs(id),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  reason text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  provider_refund_id text
);

CREATE INDEX restore_card_refunds_pending_idx ON restore_card_refunds (created_at)
  WHERE processed_at IS NULL;
