-- Queue position and ETA (src/domain/jobs/queue-estimate.ts). Every claim records when and by
-- which worker the current attempt started; unlike the lease these stay after the job ends, so
-- a finished job's run time (finished_at - claimed_at) and the workers seen recently can be read.

ALTER TABLE restore_jobs ADD COLUMN claimed_at timestamptz;
ALTER TABLE restore_jobs ADD COLUMN claimed_by text;
ALTER TABLE clips ADD COLUMN claimed_at timestamptz;
ALTER TABLE clips ADD COLUMN claimed_by text;

-- Recent finished runs, newest first (output_key is set only by a completed attempt).
CREATE INDEX restore_jobs_finished_runs_idx ON restore_jobs (finished_at)
  WHERE output_key IS NOT NULL AND claimed_at IS NOT NULL;
CREATE INDEX clips_finished_runs_idx ON clips (finished_at)
  WHERE output_key IS NOT NULL AND claimed_at IS NOT NULL;

-- Workers seen recently: the claims of the last window.
CREATE INDEX restore_jobs_claimed_idx ON restore_jobs (claimed_at) WHERE claimed_at IS NOT NULL;
CREATE INDEX clips_claimed_idx ON clips (claimed_at) WHERE claimed_at IS NOT NULL;
