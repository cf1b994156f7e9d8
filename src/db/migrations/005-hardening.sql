-- A card payment whose amount differs from its checkout is held for the operator instead of
-- credited (status 'held', with what was paid and why).
ALTER TABLE checkouts DROP CONSTRAINT checkouts_status_check;
ALTER TABLE checkouts ADD CONSTRAINT checkouts_status_check
  CHECK (status IN ('open', 'paid', 'expired', 'cancelled', 'refunded', 'held'));
ALTER TABLE checkouts ADD COLUMN paid_amount_cents bigint;
ALTER TABLE checkouts ADD COLUMN held_reason text;
CREATE INDEX checkouts_held_idx ON checkouts (paid_at) WHERE status = 'held';
