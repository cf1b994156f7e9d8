/**
 * The money core. Each operation applies its change in the SQL statement that writes the ledger
 * entry, only when the rules hold on the rows it changes — so concurrent requests cannot slip
 * between a check and a write, and a balance never changes without its entry. The charge
 * (./charge.ts, re-exported here) and a credit lock their rows in a statement of their own
 * first. Callers run these inside their own transaction when a job row must commit with them.
 */
import { sql } from "kysely";
import { inTx } from "../jobs/move.js";
import type { Db, LedgerEvents } from "./charge.js";
import { walletCredited } from "./webhooks/wallet-events.js";

export { charge, chargeLock, chargeStatement, checkViolation, type Db } from "./charge.js";

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
 * A job kind's refund when the ledger is all that paid for the job: the job's charge goes back
 * to the balance and the key's allowance (at most once per job), inside the move's transaction.
 */
export async function refundToLedger(
  tx: Db,
  row: { id: string },
  reason: string,
  events?: LedgerEvents,
): Promise<void> {
  await refundJob(tx, row.id, reason, events);
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
 * credits nothing; a negative adjustment never takes the balance below zero. The wallet row is
 * locked by a statement of its own first, so the credit's statement reads the balance it
 * writes (a debit that read an older balance than the one it updates could trip the balance's
 * CHECK and answer 500: see chargeStatement).
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
    await sql`SELECT id FROM wallets WHERE id = ${walletId} FOR NO KEY UPDATE`.execute(tx);
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
      SELECT id, balance_cents FROM wallets WHERE id = ${walletId}
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
