-- Segmented restores (issue 37): a long restore's work units. The parent restore job (charged
-- once, refunded once) is analysed once; its picture is cut into segments, each a row here that
-- any worker claims, leases, heartbeats and retries through the one job engine; the sound is one
-- more unit (`sound`), and once every one of them is done one `join` unit makes the result.
-- A unit is never charged: amount_cents is always 0 and no ledger entry names it.
CREATE TABLE restore_segments (
  id text PRIMARY KEY,
  parent_id text NOT NULL REFERENCES restore_jobs(id),
  role text NOT NULL CHECK (role IN ('segment', 'sound', 'join')),
  seg_index integer NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  wallet_id text,
  agent_key_id text,
  amount_cents integer NOT NULL DEFAULT 0 CHECK (amount_cents = 0),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL CHECK (max_attempts >= 1),
  lease_owner text,
  lease_expires_at timestamptz,
  claimed_at timestamptz,
  claimed_by text,
  progress double precision,
  error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  queued_at timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  expires_at timestamptz,
  files_deleted_at timestamptz,
  quality text NOT NULL,
  -- Seconds of source the unit covers (a segment's span; the whole length for sound and join).
  span_sec double precision NOT NULL,
  -- What the worker needs (the whole file's plan, the segment, the files to join), as JSON.
  spec text NOT NULL,
  -- ffmpeg's CPU seconds for the unit, as the worker measured them.
  cpu_sec double precision
);
-- Every unit of a restore once: a racing second join is refused by this index.
CREATE UNIQUE INDEX restore_segments_unit ON restore_segments (parent_id, role, seg_index);
-- Claimable units, oldest first.
CREATE INDEX restore_segments_claimable ON restore_segments (queued_at)
  WHERE status = 'queued' AND lease_expires_at IS NULL;
CREATE INDEX restore_segments_leased ON restore_segments (lease_expires_at)
  WHERE status = 'running';
CREATE INDEX restore_segments_status ON restore_segments (status, created_at);
