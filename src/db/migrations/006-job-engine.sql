-- One job engine for every kind: clips record when their first attempt started, as restores do.
ALTER TABLE clips ADD COLUMN started_at timestamptz;
