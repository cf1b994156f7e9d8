-- Purchases an agent key (or connected app) that must ask its owner (ask_before_spending) is
-- waiting to make: one row per asked purchase, bound to the key, the exact operation, a digest
-- of its canonical arguments and its price. Only the wallet's owner decides it, on kinora
-- (/approve/{id}, signed in with the wallet key); the agent's retry with the same arguments then
-- spends once (used_at, set by the one retry that wins) and later retries replay that answer.
-- 'pending' past expires_at reads as expired (and is marked so when the key asks again).
CREATE TABLE purchase_approvals (
  id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets(id),
  agent_key_id text NOT NULL REFERENCES agent_keys(id),
  operation_id text NOT NULL,
  args_digest text NOT NULL,
  price_cents integer NOT NULL CHECK (price_cents >= 0),
  question text NOT NULL,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'approved', 'declined', 'expired')),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  decided_at timestamptz,
  used_at timestamptz,
  CHECK (used_at IS NULL OR status = 'approved'),
  CHECK ((decided_at IS NULL) = (status IN ('pending', 'expired')))
);
-- One open question per purchase: a key asking again for the same thing finds it.
CREATE UNIQUE INDEX purchase_approvals_pending_idx
  ON purchase_approvals (agent_key_id, operation_id, args_digest, price_cents)
  WHERE status = 'pending';
CREATE INDEX purchase_approvals_purchase_idx
  ON purchase_approvals (agent_key_id, operation_id, args_digest, created_at DESC);
CREATE INDEX purchase_approvals_wallet_idx ON purchase_approvals (wallet_id, created_at DESC);
