/**
 * The charge: takes a price from a wallet's balance and an agent key's allowance, both or
 * neither, with its ledger entry — two statements in one transaction, a lock and then the
 * decision in the `UPDATE … WHERE … RETURNING` of the rows it changes (why two: see
 * chargeStatement). ledger.ts re-exports it beside the refunds and credits.
 */
import { type Kysely, sql } from "kysely";
import type { DB } from "../db/schema.js";
import { ApiError, needsTopup, overLimit, unauthorized } from "../domain/errors.js";
import type { KinoraEvents } from "../domain/events.js";
import { displayCents } from "../domain/money.js";
import { recordOf } from "../domain/records.js";
import { inTx } from "../jobs/move.js";
import { keyCharged } from "./webhooks/wallet-events.js";

/** The database handle the ledger takes (a transaction too). */
export type Db = Kysely<DB>;

/**
 * Who hears about written entries (metrics). Told right after the statement succeeds: when
 * the caller's transaction later rolls back the entry is gone but was counted — rare, and a
 * counter may over-count; reconcile reads the table itself.
 */
export type LedgerEvents = Pick<KinoraEvents, "ledgerEntry">;

/** A charge: who pays, how much, for which job. */
export interface ChargeInput {
  walletId: string;
  /** The agent key that spends, or null when the wallet key spends. */
  agentKeyId: string | null;
  amountCents: number;
  jobId: string;
  reason: string;
  /**
   * The least anything costs on this server (every served kind's cheapest job): a charge that
   * leaves an agent key below it sends key.limit_reached. Absent: no such event.
   */
  keySpentBelowCents?: number;
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
 * revoked key. Runs in the caller's transaction (or one of its own) as two statements: the
 * first locks the wallet and key rows, the second decides and writes (chargeStatement).
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
  try {
    return await inTx(db, async (tx) => {
      await chargeLock(input).execute(tx);
      const result = await chargeStatement(input).execute(tx);
      const row = result.rows[0];
      if (!row) throw new Error("charge statement returned no row");
      if (row.entry_id === null || row.balance_after === null) throw chargeRefusal(row, input);
      if (agentKeyId && row.key_remaining_after === null) {
        // Cannot happen while the lock statement holds both rows; thrown (rolling back the
        // wallet's debit) rather than leave a balance changed without its key and entry.
        throw new Error("charge took the balance but not the key allowance");
      }
      events?.ledgerEntry({ kind: "charge", amountCents: -amountCents });
      if (agentKeyId && row.key_remaining_before !== null && row.key_remaining_after !== null) {
        // key.limit_reached when this charge leaves the key unable to buy anything more; it
        // commits with the charge.
        const key = { walletId: input.walletId, agentKeyId };
        const amounts = {
          before: Number(row.key_remaining_before),
          after: Number(row.key_remaining_after),
        };
        await keyCharged(tx, { ...key, ...amounts }, input.keySpentBelowCents, new Date());
      }
      return {
        entryId: Number(row.entry_id),
        balanceCents: row.balance_after,
        keyRemainingCents: agentKeyId ? row.key_remaining_after : null,
      };
    });
  } catch (err) {
    throw checkViolation(err, input) ?? err;
  }
}

/**
 * The first statement of a charge: locks the wallet row, then the key row (the order every
 * writer of both takes them, so two cannot deadlock), waiting out any transaction that holds
 * them. NO KEY UPDATE is the lock the UPDATEs take anyway; it leaves rows that merely
 * reference the wallet (a job, an entry) free to be inserted by others meanwhile.
 */
export function chargeLock(input: ChargeInput) {
  const { walletId, agentKeyId } = input;
  return sql<{ wallets: number; keys: number }>`
    WITH w AS (
      SELECT id FROM wallets WHERE id = ${walletId} FOR NO KEY UPDATE
    ), k AS (
      SELECT id FROM agent_keys WHERE id = ${agentKeyId} AND wallet_id = ${walletId}
      FOR NO KEY UPDATE
    )
    SELECT (SELECT count(*) FROM w) AS wallets, (SELECT count(*) FROM k) AS keys`;
}

/**
 * The second statement of a charge: the rules live in the `UPDATE … WHERE … RETURNING` of the
 * rows it changes, and the ledger entry is written only when both changed.
 *
 * Why after a lock statement, not one statement that locks in a CTE (as it once was): every
 * part of a statement reads its one snapshot, taken when the statement starts. Under READ
 * COMMITTED an UPDATE builds the new row from the row version in that snapshot, checks CHECK
 * constraints on it, and only then finds that a transaction which committed meanwhile (a limit
 * change, a top-up, another charge the statement had queued behind) replaced that version — it
 * re-reads the newest one (EvalPlanQual) and re-applies its WHERE. A statement that waited for
 * the wallet's lock therefore checked `agent_keys_check` against a key row older than the one
 * it had locked and decided on (limit 300, spent 354 when the limit had since been raised), and
 * answered 500; and an UPDATE whose WHERE failed on the old version would skip the row without
 * looking at the newest. Here the snapshot is taken after the locks are held, so the rows it
 * reads are the rows it writes: no later version exists and nothing can commit one before this
 * transaction ends. Exported so the benchmark can run the identical SQL straight on the driver.
 */
export function chargeStatement(input: ChargeInput) {
  const { walletId, agentKeyId, amountCents, jobId, reason } = input;
  const keyAllows = sql`revoked_at IS NULL AND limit_cents - spent_cents >= ${amountCents}`;
  return sql<ChargeRow>`
    WITH w AS (
      SELECT balance_cents, paused FROM wallets WHERE id = ${walletId}
    ), k AS (
      SELECT limit_cents - spent_cents AS remaining, revoked_at IS NOT NULL AS revoked
      FROM agent_keys WHERE id = ${agentKeyId} AND wallet_id = ${walletId}
    ), wu AS (
      UPDATE wallets SET balance_cents = balance_cents - ${amountCents}
      WHERE id = ${walletId} AND NOT paused AND balance_cents >= ${amountCents}
        AND (${agentKeyId}::text IS NULL OR EXISTS (
          SELECT 1 FROM agent_keys
          WHERE id = ${agentKeyId} AND wallet_id = ${walletId} AND ${keyAllows}))
      RETURNING balance_cents
    ), ku AS (
      UPDATE agent_keys SET spent_cents = spent_cents + ${amountCents}, last_used_at = now()
      WHERE id = ${agentKeyId} AND wallet_id = ${walletId} AND ${keyAllows}
        AND EXISTS (SELECT 1 FROM wu)
      RETURNING limit_cents - spent_cents AS remaining
    ), e AS (
      INSERT INTO ledger_entries (wallet_id, agent_key_id, kind, amount_cents, key_amount_cents, job_id, reason)
      SELECT ${walletId}, ${agentKeyId}, 'charge', ${-amountCents},
             CASE WHEN ${agentKeyId}::text IS NULL THEN 0 ELSE ${amountCents}::bigint END,
             ${jobId}, ${reason}
      WHERE EXISTS (SELECT 1 FROM wu)
        AND (${agentKeyId}::text IS NULL OR EXISTS (SELECT 1 FROM ku))
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

/**
 * The backstop as the caller's answer: a CHECK constraint that stopped a charge (which the
 * statement's own conditions should have prevented) is the 402 it stands for, never a 500 —
 * `agent_keys_check` (spent within the limit) is over_limit, the balance's is needs_topup.
 * Nothing was charged: the statement, and the caller's transaction with it, rolled back.
 */
export function checkViolation(err: unknown, input: ChargeInput): ApiError | null {
  const e = recordOf(err);
  if (e.code !== "23514") return null;
  const price = displayCents(input.amountCents);
  if (e.constraint === "agent_keys_check") {
    return overLimit(
      `This agent key's limit does not cover the price (${price}) (it changed while this purchase was made); nothing was charged. Ask the wallet owner to raise the limit or use another key.`,
    );
  }
  if (e.constraint === "wallets_balance_cents_check") {
    return needsTopup(
      `The balance does not cover the price (${price}) (it changed while this purchase was made); nothing was charged.`,
    );
  }
  return null;
}
