/**
 * The money core. Each operation is ONE SQL statement that locks the rows it changes, applies
 * the change only when the rules hold, and writes the ledger entry — so concurrent requests
 * cannot slip between a check and a write, and a balance never changes without its entry.
 * Callers run these inside their own transaction when a job row must commit with the charge.
 */
import { type Kysely, sql } from "kysely";
import type { DB } from "../db/schema.js";
import { ApiError, needsTopup, overLimit, unauthorized } from "../domain/errors.js";
import type { KinoraEvents } from "../domain/events.js";
import { displayCents } from "../domain/money.js";
import { inTx } from "../jobs/move.js";
import { keyCharged, walletCredited } from "./webhooks/wallet-events.js";

/** The database handle the ledger takes (a transaction too). */
export type Db = Kysely<DB>;

/**
 * Who hears about written entries (metrics). Told right after the statement succeeds: when
 * the caller's transaction later rolls back the entry is gone but was counted — rare, and a
 * counter may over-count; reconcile reads the table itself.
 */
type LedgerEvents = Pick<KinoraEvents, "ledgerEntry">;

interface ChargeInput {
  walletId: string;
  /** The agent key that spends, or null when the wallet key spends. */
  agentKeyId: string | null;
  amountCents: number;
  jobId: string;
  reason: string;
}

interface ChargeResult {
  entryId: number;
  balanceCents: number;
  /** Allowance left on the agent key after the charge; null for the wallet key. */
  keyRemainingCents: number | null;
}

interface ChargeRow {
  wallet_found: boolean;
  paused: boolean | null;
  balance_before: number | null;
  key_found: boolean;
  key_revoked: boolean | null;
  key_remaining_before: number | null;
  balance_after: number | null;
  key_remaining_after: number | null;
  entry_id: number | null;
}

/**
 * Takes `amountCents` from the wallet and, for an agent key, from its allowance — both or
 * neither. Refuses with 402 needs_topup / over_limit, 403 for a paused wallet, 401 for a
 * revoked key. The row locks (FOR UPDATE) serialise concurrent charges of one wallet.
 */
export async function charge(
  db: Db,
  input: ChargeInput,
  events?: LedgerEvents,
): Promise<ChargeResult> {
  const { agentKeyId, amountCents } = input;
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
    throw new Error(`charge amount must be a positive integer of cents, got ${amountCents}`);
  }
  const result = await chargeStatement(input).execute(db);
  const row = result.rows[0];
  if (!row) throw new Error("charge statement returned no row");
  if (row.entry_id !== null && row.balance_after !== null) {
    events?.ledgerEntry({ kind: "charge", amountCents: -amountCents });
    if (agentKeyId && row.key_remaining_before !== null && row.key_remaining_after !== null) {
      // key.limit_reached when this charge leaves the key unable to buy anything more; callers
      // run charges in their transaction, so the event commits with the charge.
      const key = { walletId: input.walletId, agentKeyId };
      const amounts = {
        before: Number(row.key_remaining_before),
        after: Number(row.key_remaining_after),
      };
      await keyCharged(db, { ...key, ...amounts }, new Date());
    }
    return {
      entryId: Number(row.entry_id),
      balanceCents: row.balance_after,
      keyRemainingCents: agentKeyId ? row.key_remaining_after : null,
    };
  }
  throw chargeRefusal(row, input);
}

/**
 * The charge as one statement: lock the wallet (and key) rows, update both only when the
 * balance, the allowance, the pause switch and the revocation all allow it, and insert the
 * ledger entry. Exported so the benchmark can run the identical SQL straight on the driver.
 */
export function chargeStatement(input: ChargeInput) {
  const { walletId, agentKeyId, amountCents, jobId, reason } = input;
  return sql<ChargeRow>`
    WITH w AS (
      SELECT id, balance_cents, paused FROM wallets WHERE id = ${walletId} FOR UPDATE
    ), k AS (
      SELECT id, limit_cents - spent_cents AS remaining, revoked_at IS NOT NULL AS revoked
      FROM agent_keys WHERE id = ${agentKeyId} AND wallet_id = ${walletId} FOR UPDATE
    ), ok AS (
      SELECT 1 FROM w
      WHERE NOT w.paused AND w.balance_cents >= ${amountCents}
        AND (${agentKeyId}::text IS NULL
             OR EXISTS (SELECT 1 FROM k WHERE NOT k.revoked AND k.remaining >= ${amountCents}))
    ), wu AS (
      UPDATE wallets SET balance_cents = balance_cents - ${amountCents}
      WHERE id = ${walletId} AND EXISTS (SELECT 1 FROM ok)
      RETURNING balance_cents
    ), ku AS (
      UPDATE agent_keys SET spent_cents = spent_cents + ${amountCents}, last_used_at = now()
      WHERE id = ${agentKeyId} AND EXISTS (SELECT 1 FROM ok)
      RETURNING limit_cents - spent_cents AS remaining
    ), e AS (
      INSERT INTO ledger_entries (wallet_id, agent_key_id, kind, amount_cents, key_amount_cents, job_id, reason)
      SELECT ${walletId}, ${agentKeyId}, 'charge', ${-amountCents},
             CASE WHEN ${agentKeyId}::text IS NULL THEN 0 ELSE ${amountCents}::bigint END,
             ${jobId}, ${reason}
      WHERE EXISTS (SELECT 1 FROM ok)
      RETURNING id
    )
    SELECT
      EXISTS (SELECT 1 FROM w) AS wallet_found,
      (SELECT paused FROM w) AS paused,
      (SELECT balance_cents FROM w) AS balance_before,
      EXISTS (SELECT 1 FROM k) AS key_found,
      (SELECT revoked FROM k) AS key_revoked,
      (SELECT remaining FROM k) AS key_remaining_before,
      (SELECT balance_cents FROM wu) AS balance_after,
      (SELECT remaining FROM ku) AS key_remaining_after,
      (SELECT id FROM e) AS entry_id
  `;
}

function chargeRefusal(row: ChargeRow, input: ChargeInput): ApiError {
  const price = displayCents(input.amountCents);
  if (!row.wallet_found) return unauthorized("The wallet of this key no longer exists.");
  if (row.paused) {
    return new ApiError(
      "wallet_paused",
      "This wallet is paused by the operator, so it cannot spend; contact the operator to unpause it.",
    );
  }
  if (input.agentKeyId && (!row.key_found || row.key_revoked)) {
    return new ApiError(
      "key_revoked",
      "This agent key has been revoked; ask the wallet owner for a new key.",
    );
  }
  const balance = row.balance_before ?? 0;
  if (balance < input.amountCents) {
    return needsTopup(
      `The balance (${displayCents(balance)}) does not cover the price (${price}).`,
    );
  }
  const remaining = row.key_remaining_before ?? 0;
  return overLimit(
    `This agent key has ${displayCents(remaining)} left of its limit, less than the price (${price}); ask the wallet owner to raise the limit or use another key.`,
  );
}

interface RefundResult {
  refunded: boolean;
  amountCents: number;
}

/**
 * Returns what is left of a job's charge to the wallet and the agent key's allowance, at most
 * once: the charge less any part already given back (refundJobPart). The unique index on
 * (job_id) WHERE kind = 'refund' turns a second refund into a no-op, even when 50 arrive at
 * once. A job that was never charged (e.g. paid by card) refunds nothing here.
 */
export async function refundJob(
  db: Db,
  jobId: string,
  reason: string,
  events?: LedgerEvents,
): Promise<RefundResult> {
  // The charge (negative) and a part given back (positive) share the wallet and key, so their
  // sums per (wallet, key) are what is still held, with the signs a refund reverses.
  const result = await sql<{ amount_cents: number | null }>`
    WITH held AS (
      SELECT wallet_id, agent_key_id, job_id,
             -SUM(amount_cents) AS amount_cents, -SUM(key_amount_cents) AS key_amount_cents
      FROM ledger_entries WHERE job_id = ${jobId} AND kind IN ('charge', 'adjustment')
      GROUP BY wallet_id, agent_key_id, job_id
      HAVING SUM(amount_cents) < 0
    ), e AS (
      INSERT INTO ledger_entries (wallet_id, agent_key_id, kind, amount_cents, key_amount_cents, job_id, reason)
      SELECT wallet_id, agent_key_id, 'refund', amount_cents, key_amount_cents, job_id, ${reason}
      FROM held
      ON CONFLICT (job_id) WHERE kind = 'refund' DO NOTHING
      RETURNING wallet_id, agent_key_id, amount_cents, key_amount_cents
    )
    ${returnToWallet}`.execute(db);
  const amount = result.rows[0]?.amount_cents ?? null;
  if (amount !== null) events?.ledgerEntry({ kind: "refund", amountCents: Number(amount) });
  return { refunded: amount !== null, amountCents: amount === null ? 0 : Number(amount) };
}

/**
 * Adds entry `e` to the balance and the key's spent amount (the tail of both refund
 * statements): the balance and the allowance change in the statement that writes the entry.
 */
const returnToWallet = sql`, wu AS (
      UPDATE wallets SET balance_cents = wallets.balance_cents + e.amount_cents
      FROM e WHERE wallets.id = e.wallet_id
      RETURNING wallets.id
    ), ku AS (
      UPDATE agent_keys SET spent_cents = agent_keys.spent_cents + e.key_amount_cents
      FROM e WHERE agent_keys.id = e.agent_key_id
      RETURNING agent_keys.id
    )
    SELECT (SELECT amount_cents FROM e) AS amount_cents,
           (SELECT count(*) FROM wu) + (SELECT count(*) FROM ku) AS touched`;

interface PartRefundInput {
  jobId: string;
  /** Cents to give back; less than the charge (the rest stays charged). */
  amountCents: number;
  reason: string;
}

/**
 * Gives part of a job's charge back — a restore whose measured length prices lower than the
 * declared one — as one `adjustment` entry tied to the job, to the balance and to the agent
 * key's allowance, at most once per job (unique index on (job_id) WHERE kind = 'adjustment').
 * Nothing is written when the job was never charged, is already refunded, or the amount is
 * not below the charge: a part and a later refund together never exceed the charge.
 * Callers hold the job's row lock (its conditional update) so a refund cannot slip between.
 */
export async function refundJobPart(
  db: Db,
  input: PartRefundInput,
  events?: LedgerEvents,
): Promise<RefundResult> {
  const { jobId, amountCents, reason } = input;
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
    throw new Error(`a part refund must be a positive integer of cents, got ${amountCents}`);
  }
  const result = await sql<{ amount_cents: number | null }>`
    WITH c AS (
      SELECT wallet_id, agent_key_id, job_id, -amount_cents AS charged, key_amount_cents
      FROM ledger_entries WHERE job_id = ${jobId} AND kind = 'charge'
    ), e AS (
      INSERT INTO ledger_entries (wallet_id, agent_key_id, kind, amount_cents, key_amount_cents, job_id, reason)
      SELECT wallet_id, agent_key_id, 'adjustment', ${amountCents},
             CASE WHEN key_amount_cents = 0 THEN 0 ELSE ${-amountCents}::bigint END,
             job_id, ${reason}
      FROM c
      WHERE ${amountCents} < c.charged
        AND NOT EXISTS (
          SELECT 1 FROM ledger_entries r WHERE r.job_id = ${jobId} AND r.kind = 'refund')
      ON CONFLICT (job_id) WHERE kind = 'adjustment' DO NOTHING
      RETURNING wallet_id, agent_key_id, amount_cents, key_amount_cents
    )
    ${returnToWallet}`.execute(db);
  const amount = result.rows[0]?.amount_cents ?? null;
  if (amount !== null) events?.ledgerEntry({ kind: "adjustment", amountCents: Number(amount) });
  return { refunded: amount !== null, amountCents: amount === null ? 0 : Number(amount) };
}

interface CreditInput {
  walletId: string;
  amountCents: number;
  kind: "topup" | "adjustment";
  /** Unique per payment (checkout session, tx hash, operator request id): credits at most once. */
  reference: string;
  reason: string;
}

interface CreditResult {
  credited: boolean;
  balanceCents: number | null;
}

/**
 * Adds money (a top-up or an operator adjustment, which may be negative). A repeated reference
 * credits nothing; a negative adjustment never takes the balance below zero.
 */
export async function credit(
  db: Db,
  input: CreditInput,
  events?: LedgerEvents,
): Promise<CreditResult> {
  const { walletId, amountCents, kind } = input;
  if (!Number.isSafeInteger(amountCents) || amountCents === 0) {
    throw new Error(`credit amount must be a non-zero integer of cents, got ${amountCents}`);
  }
  if (kind === "topup" && amountCents < 0) throw new Error("a top-up must be positive");
  // The credit and its wallet.credited webhook event commit together.
  return inTx(db, async (tx) => {
    const credited = await creditStatement(input).execute(tx);
    const row = credited.rows[0];
    if (row?.inserted) events?.ledgerEntry({ kind, amountCents });
    const balanceCents = row?.balance_cents ?? null;
    if (row?.inserted && balanceCents !== null) {
      await walletCredited(tx, { walletId, amountCents, kind, balanceCents }, new Date());
    }
    return { credited: Boolean(row?.inserted), balanceCents };
  });
}

function creditStatement(input: CreditInput) {
  const { walletId, amountCents, kind, reference, reason } = input;
  return sql<{ balance_cents: number | null; inserted: boolean }>`
    WITH w AS (
      SELECT id, balance_cents FROM wallets WHERE id = ${walletId} FOR UPDATE
    ), e AS (
      INSERT INTO ledger_entries (wallet_id, kind, amount_cents, reference, reason)
      SELECT ${walletId}, ${kind}, ${amountCents}, ${reference}, ${reason}
      FROM w WHERE w.balance_cents + ${amountCents} >= 0
      ON CONFLICT (kind, reference) WHERE reference IS NOT NULL DO NOTHING
      RETURNING amount_cents
    ), wu AS (
      UPDATE wallets SET balance_cents = wallets.balance_cents + e.amount_cents
      FROM e WHERE wallets.id = ${walletId}
      RETURNING wallets.balance_cents
    )
    SELECT COALESCE((SELECT balance_cents FROM wu), (SELECT balance_cents FROM w)) AS balance_cents,
           EXISTS (SELECT 1 FROM e) AS inserted
  `;
}
