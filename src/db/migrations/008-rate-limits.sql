-- Fixed-window request counters shared by every API node (PostgreSQL); PGlite keeps them in
-- process memory instead. Old windows are deleted by the housekeeping task.
CREATE TABLE rate_limits (
  bucket text NOT NULL,
  window_start timestamptz NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_limits_window_idx ON rate_limits (window_start);
