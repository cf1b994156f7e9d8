-- What the customer says of the tape's levels, for restores and previews alike: 'auto' (the
-- analysis decides whether the picture is faded), 'faded' (correct the levels even where the
-- analysis reads no fade: a light one reads like a clean scene of low contrast) or 'not_faded'
-- (keep them: a graded, foggy or low-key scene). Rows made before it were decided by the analysis.
ALTER TABLE restore_jobs ADD COLUMN fade text NOT NULL DEFAULT 'auto'
  CHECK (fade IN ('auto', 'faded', 'not_faded'));
ALTER TABLE preview_jobs ADD COLUMN fade text NOT NULL DEFAULT 'auto'
  CHECK (fade IN ('auto', 'faded', 'not_faded'));
