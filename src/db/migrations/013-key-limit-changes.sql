-- The owner changes an agent key's limit (PATCH /wallet/keys/{id}): a ledger entry that moves no
-- money, so the change shows in the wallet's history beside what the key spent.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('charge', 'refund', 'topup', 'adjustment', 'payout', 'key_limit'));
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_key_limit_moves_nothing
  CHECK (kind <> 'key_limit' OR (amount_cents = 0 AND key_amount_cents = 0 AND agent_key_id IS NOT NULL));
