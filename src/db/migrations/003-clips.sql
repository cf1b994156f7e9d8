-- Motion clips. Every status change is a conditional UPDATE … WHERE status = expected
-- (see src/domain/clips/transitions.ts); the worker lease lives on the row.

CREATE TABLE clips (
  id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets(id),
  agent_key_id text REFERENCES agent_keys(id),
  status text NOT NULL CHECK (status IN ('awaiting_upload', 'queued', 'processing', 'done',
    'failed', 'refused', 'expired', 'cancelled')),
  size text NOT NULL CHECK (size IN ('480p', '720p')),
  seconds integer NOT NULL CHECK (seconds = 5),
  prompt text NOT NULL CHECK (char_length(prompt) BETWEEN 1 AND 800),
  loop boolean NOT NULL DEFAULT false,
  seed bigint NOT NULL CHECK (seed BETWEEN 0 AND 2147483647),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  content_type text NOT NULL,
  image_bytes bigint,
  image_url text,
  error text,
  refusal_code text,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL CHECK (max_attempts >= 1),
  lease_owner text,
  lease_expires_at timestamptz,
  progress double precision,
  image_key text NOT NULL,
  output_key text,
  output_bytes bigint,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  queued_at timestamptz,
  finished_at timestamptz,
  upload_expires_at timestamptz NOT NULL,
  expires_at timestamptz,
  files_deleted_at timestamptz
);

-- Claimable clips: queued, oldest first.
CREATE INDEX clips_queued_idx ON clips (queued_at) WHERE status = 'queued';
CREATE INDEX clips_leased_idx ON clips (lease_expires_at) WHERE status = 'processing';
CREATE INDEX clips_awaiting_idx ON clips (upload_expires_at) WHERE status = 'awaiting_upload';
CREATE INDEX clips_retention_idx ON clips (expires_at) WHERE files_deleted_at IS NULL;
CREATE INDEX clips_wallet_idx ON clips (wallet_id, created_at DESC, id DESC);
CREATE INDEX clips_key_idx ON clips (agent_key_id, created_at DESC, id DESC);
