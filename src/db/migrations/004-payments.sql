-- Money in: card checkouts (Stripe or the built-in test checkout), Stripe event dedupe,
-- USDC top-ups over x402 and USDC refunds. Every credit is a ledger entry whose reference is
-- the checkout id or the transaction hash, so a payment credits at most once.

CREATE TABLE checkouts (
  id text PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('topup', 'restore_job')),
  wallet_id text REFERENCES wallets(id),
  job_id text,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  email text,
  provider text NOT NULL CHECK (provider IN ('stripe', 'test')),
  provider_session_id text,
  provider_payment_id text,
  -- Where the payer goes; kept so asking again for an open checkout returns the same link.
  checkout_url text,
  status text NOT NULL DEFAULT 'open'
    CHECK (status IN ('open', 'paid', 'expired', 'cancelled', 'refunded')),
  created_at timestamptz NOT NULL DEFAULT now(),
  paid_at timestamptz,
  expires_at timestamptz NOT NULL,
  CHECK ((purpose = 'topup') = (wallet_id IS NOT NULL)),
  CHECK ((purpose = 'restore_job') = (job_id IS NOT NULL))
);

CREATE UNIQUE INDEX checkouts_provider_session ON checkouts (provider, provider_session_id)
  WHERE provider_session_id IS NOT NULL;
CREATE INDEX checkouts_open_idx ON checkouts (expires_at) WHERE status = 'open';
CREATE INDEX checkouts_job_idx ON checkouts (job_id, created_at) WHERE job_id IS NOT NULL;
-- A job can end up paid twice (two sessions paid, one late): both payments are recorded and
-- the one the job did not start with is refunded by the background task.
CREATE INDEX checkouts_paid_jobs_idx ON checkouts (paid_at)
  WHERE purpose = 'restore_job' AND status = 'paid';

-- Stripe retries and reorders deliveries: an event id is acted on once, in the same
-- transaction as its effect.
CREATE TABLE payment_events (
  provider text NOT NULL,
  event_id text NOT NULL,
  type text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, event_id)
);

-- Refunds made through the built-in test checkout (no money moves; the row is the record).
CREATE TABLE test_checkout_refunds (
  idempotency_key text PRIMARY KEY,
  id text NOT NULL UNIQUE,
  provider_payment_id text NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  reason text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One row per x402 payment attempt, claimed by (payer, nonce) before settling, so a replayed
-- or concurrent signature is settled at most once. 'unknown' until the outcome is known.
CREATE TABLE usdc_payments (
  id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets(id),
  payer text NOT NULL,
  nonce text NOT NULL,
  tx_hash text UNIQUE,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  amount_atomic text NOT NULL,
  valid_before bigint NOT NULL,
  from_block bigint,
  status text NOT NULL DEFAULT 'unknown'
    CHECK (status IN ('pending', 'confirmed', 'failed', 'unknown')),
  detail text,
  checks integer NOT NULL DEFAULT 0,
  next_check_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  confirmed_at timestamptz,
  UNIQUE (payer, nonce)
);

CREATE INDEX usdc_payments_open_idx ON usdc_payments (next_check_at)
  WHERE status IN ('pending', 'unknown');
CREATE INDEX usdc_payments_wallet_idx ON usdc_payments (wallet_id, created_at);

-- USDC sent back to a payer. The wallet is debited (ledger kind 'payout', reference = id)
-- before sending; a send that fails is re-credited with a correcting entry.
CREATE TABLE usdc_refunds (
  id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets(id),
  to_address text NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  status text NOT NULL DEFAULT 'sending'
    CHECK (status IN ('sending', 'sent', 'failed', 'unknown')),
  tx_hash text UNIQUE,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);

CREATE INDEX usdc_refunds_wallet_idx ON usdc_refunds (wallet_id, created_at);
