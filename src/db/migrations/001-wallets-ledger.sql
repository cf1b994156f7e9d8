-- Wallets, agent keys and the append-only ledger. Every balance or allowance change is a
-- ledger entry written in the same statement; CHECKs are the backstop if a query is wrong.

CREATE TABLE wallets (
  id text PRIMARY KEY,
  key_hash text NOT NULL UNIQUE,
  email text,
  balance_cents bigint NOT NULL DEFAULT 0 CHECK (balance_cents >= 0),
  paused boolean NOT NULL DEFAULT false,
  paused_reason text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE agent_keys (
  id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets(id),
  key_hash text NOT NULL UNIQUE,
  label text NOT NULL DEFAULT '',
  kind text NOT NULL DEFAULT 'agent' CHECK (kind IN ('agent', 'connected_app')),
  limit_cents bigint NOT NULL CHECK (limit_cents BETWEEN 1 AND 100000),
  spent_cents bigint NOT NULL DEFAULT 0 CHECK (spent_cents >= 0 AND spent_cents <= limit_cents),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);

CREATE INDEX agent_keys_wallet_idx ON agent_keys (wallet_id, created_at);

-- amount_cents: signed effect on the wallet balance. key_amount_cents: signed effect on the
-- agent key's spent_cents (a charge by an agent key is +price, its refund -price).
CREATE TABLE ledger_entries (
  id bigserial PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets(id),
  agent_key_id text REFERENCES agent_keys(id),
  kind text NOT NULL CHECK (kind IN ('charge', 'refund', 'topup', 'adjustment', 'payout')),
  amount_cents bigint NOT NULL,
  key_amount_cents bigint NOT NULL DEFAULT 0,
  job_id text,
  reference text,
  reason text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (kind <> 'charge' OR (amount_cents < 0 AND job_id IS NOT NULL)),
  CHECK (kind <> 'refund' OR (amount_cents > 0 AND job_id IS NOT NULL)),
  CHECK (kind <> 'topup' OR (amount_cents > 0 AND reference IS NOT NULL))
);

CREATE INDEX ledger_entries_wallet_idx ON ledger_entries (wallet_id, id);

-- A job is charged at most once and refunded at most once.
CREATE UNIQUE INDEX ledger_one_charge_per_job ON ledger_entries (job_id) WHERE kind = 'charge';
CREATE UNIQUE INDEX ledger_one_refund_per_job ON ledger_entries (job_id) WHERE kind = 'refund';
-- A payment (checkout session, USDC transfer, operator request) credits at most once.
CREATE UNIQUE INDEX ledger_one_credit_per_reference ON ledger_entries (kind, reference)
  WHERE reference IS NOT NULL;

CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only: write a correcting entry instead';
END;
$$;

CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();

-- Idempotency-Key records: same key + same request replays the stored response.
CREATE TABLE idempotency_keys (
  scope text NOT NULL,
  idem_key text NOT NULL,
  request_hash text NOT NULL,
  status_code integer,
  response_body text,
  response_headers text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, idem_key)
);

CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
