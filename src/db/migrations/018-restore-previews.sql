-- Free restore previews (issue 38 item 5): about 5 s of a video, from where it is most damaged,
-- restored at every quality, with stills and the plan in words. A preview costs nothing
-- (amount_cents is always 0: no ledger entry), belongs to the key that made it, and its files
-- go after the same retention as a restore's. `result` holds what the worker found (JSON).
CREATE TABLE preview_jobs (
  id text PRIMARY KEY,
  status text NOT NULL,
  wallet_id text NOT NULL REFERENCES wallets(id),
  agent_key_id text,
  amount_cents integer NOT NULL DEFAULT 0 CHECK (amount_cents = 0),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  lease_owner text,
  lease_expires_at timestamptz,
  claimed_at timestamptz,
  claimed_by text,
  progress double precision,
  error text,
  error_code text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  queued_at timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  expires_at timestamptz,
  files_deleted_at timestamptz,
  input_key text NOT NULL,
  size_bytes bigint,
  content_type text NOT NULL,
  source_url text,
  upload_expires_at timestamptz NOT NULL,
  result text
);
-- A key's previews, newest first (lists page by created_at, id).
CREATE INDEX preview_jobs_wallet_created ON preview_jobs (wallet_id, created_at DESC, id DESC);
-- The queue and the sweeper look jobs up by status.
CREATE INDEX preview_jobs_status ON preview_jobs (status, created_at);
