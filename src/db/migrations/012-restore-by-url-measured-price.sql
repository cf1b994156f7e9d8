-- Restores from a public URL, and priced by the length the worker measures (issue 18).

-- The public video_url a worker fetches into storage; null when the caller uploads the file.
ALTER TABLE restore_jobs ADD COLUMN source_url text;
-- A video_url job learns its size only when the file is fetched.
ALTER TABLE restore_jobs ALTER COLUMN size_bytes DROP NOT NULL;
-- What the job was charged for its declared length. amount_cents starts equal and becomes the
-- price of the measured length when that is lower (the difference went back at measurement).
ALTER TABLE restore_jobs ADD COLUMN declared_amount_cents bigint;
UPDATE restore_jobs SET declared_amount_cents = amount_cents;
ALTER TABLE restore_jobs ALTER COLUMN declared_amount_cents SET NOT NULL;
ALTER TABLE restore_jobs ADD CONSTRAINT restore_jobs_never_above_declared
  CHECK (amount_cents <= declared_amount_cents);
-- Why a job failed or was refunded, for machines (video_fetch_failed, too_long, corrupt, …).
ALTER TABLE restore_jobs ADD COLUMN error_code text;

-- A job-tied adjustment gives part of a job's charge back (its measured length priced lower):
-- only ever money back, at most once per job. Operator adjustments carry no job.
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_job_adjustment_gives_back
  CHECK (kind <> 'adjustment' OR job_id IS NULL OR amount_cents > 0);
CREATE UNIQUE INDEX ledger_one_adjustment_per_job ON ledger_entries (job_id)
  WHERE kind = 'adjustment';

-- A card-paid job may get two card refunds: the measured difference, then (if it later fails)
-- what is left of the price. One row of each kind per job.
ALTER TABLE restore_card_refunds ADD COLUMN kind text NOT NULL DEFAULT 'refund'
  CHECK (kind IN ('refund', 'measured'));
ALTER TABLE restore_card_refunds DROP CONSTRAINT restore_card_refunds_pkey;
ALTER TABLE restore_card_refunds ADD PRIMARY KEY (job_id, kind);
