/**
 * Charges that decide on stale data, for negative controls: tests run them where the real
 * charge runs to show that their checks catch what a stale decision does (a 500 from a CHECK
 * constraint, or an overspend where no constraint stops it).
 *
 * - `oldChargeStatement`: the charge as it was until issue 34, one statement that locked the
 *   rows in CTEs and updated them in later CTEs. Its UPDATEs built the new row from the row
 *   version of the statement's snapshot, taken before it waited for the locks; PostgreSQL
 *   checks CHECK constraints on that row before re-reading the newest version, so a charge that
 *   waited out a limit raise or a top-up failed `agent_keys_check` or the balance's check.
 *   PGlite runs one transaction at a time and never shows it.
 * - `cachedAllowanceCharge`: decides on the key's limit as cached (`cacheLimit`, or as first
 *   read), as a cache that is not told about limit changes would, then updates without
 *   conditions; it goes wrong on both databases as soon as a limit is lowered.
 */
import { sql } from "kysely";
import { ApiError, needsTopup, overLimit } from "../src/domain/errors.js";
import type { ChargeInput } from "../src/services/charge.js";
import type { Db } from "../src/services/ledger.js";

interface Row {
  balance_before: number | null;
  key_remaining_before: number | null;
  key_revoked: boolean | null;
  paused: boolean | null;
  balance_after: number | null;
  key_remaining_after: number | null;
  entry_id: number | null;
}

/** The pre-issue-34 charge statement, verbatim. */
export function oldChargeStatement(input: ChargeInput) {
  const { walletId, agentKeyId, amountCents, jobId, reason } = input;
  return sql<Row>`
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
      (SELECT paused FROM w) AS paused,
      (SELECT balance_cents FROM w) AS balance_before,
      (SELECT revoked FROM k) AS key_revoked,
      (SELECT remaining FROM k) AS key_remaining_before,
      (SELECT balance_cents FROM wu) AS balance_after,
      (SELECT remaining FROM ku) AS key_remaining_after,
      (SELECT id FROM e) AS entry_id
  `;
}

/** The charge's answer to a row that charged nothing (the old statement's refusals, briefly). */
function refusal(row: Row, input: ChargeInput): ApiError {
  if (row.paused) return new ApiError("wallet_paused", "This wallet is paused.");
  if (input.agentKeyId && row.key_revoked !== false) {
    return new ApiError("key_revoked", "This agent key has been revoked.");
  }
  if ((row.balance_before ?? 0) < input.amountCents) return needsTopup("The balance is short.");
  return overLimit("This agent key's limit is short.");
}

/** What the charge returned (the shape callers read). */
function result(row: Row, input: ChargeInput) {
  if (row.entry_id === null || row.balance_after === null) throw refusal(row, input);
  return {
    entryId: Number(row.entry_id),
    balanceCents: row.balance_after,
    keyRemainingCents: input.agentKeyId ? row.key_remaining_after : null,
  };
}

/** The old charge: its one statement, no lock statement before it, no CHECK mapping. */
export async function oldCharge(db: Db, input: ChargeInput) {
  const rows = await oldChargeStatement(input).execute(db);
  return result(rows.rows[0] as Row, input);
}

const cachedLimit = new Map<string, number>();

/** What cachedAllowanceCharge believes a key's limit is (e.g. read when the key was made). */
export function cacheLimit(keyId: string, limitCents: number): void {
  cachedLimit.set(keyId, limitCents);
}

/**
 * A charge that decides on the key's limit as cached (the balance and spent amount as they
 * are), then takes the money with no condition in its UPDATE.
 */
export async function cachedAllowanceCharge(db: Db, input: ChargeInput) {
  const { walletId, agentKeyId, amountCents, jobId, reason } = input;
  const now = await sql<{
    balance: number;
    paused: boolean;
    spent: number | null;
    limit: number | null;
    revoked: boolean | null;
  }>`
    SELECT w.balance_cents AS balance, w.paused, k.spent_cents AS spent, k.limit_cents AS "limit",
           k.revoked_at IS NOT NULL AS revoked
    FROM wallets w LEFT JOIN agent_keys k ON k.id = ${agentKeyId} AND k.wallet_id = w.id
    WHERE w.id = ${walletId} FOR UPDATE OF w`.execute(db);
  const seen = now.rows[0];
  if (!seen) throw new ApiError("unauthorized", "No such wallet.");
  let limit = seen.limit === null ? null : Number(seen.limit);
  if (agentKeyId && limit !== null) {
    limit = cachedLimit.get(agentKeyId) ?? limit;
    cachedLimit.set(agentKeyId, limit);
  }
  const remaining = limit === null ? null : limit - Number(seen.spent);
  const row: Row = {
    paused: seen.paused,
    balance_before: Number(seen.balance),
    key_revoked: agentKeyId ? seen.revoked : false,
    key_remaining_before: remaining,
    balance_after: null,
    key_remaining_after: null,
    entry_id: null,
  };
  const allowed =
    !seen.paused &&
    Number(seen.balance) >= amountCents &&
    (!agentKeyId || (seen.revoked === false && remaining !== null && remaining >= amountCents));
  if (!allowed) throw refusal(row, input);
  const keyCents = agentKeyId ? amountCents : 0;
  const written = await sql<{ balance_after: number; entry_id: number }>`
    WITH wu AS (
      UPDATE wallets SET balance_cents = balance_cents - ${amountCents} WHERE id = ${walletId}
      RETURNING balance_cents
    ), ku AS (
      UPDATE agent_keys SET spent_cents = spent_cents + ${amountCents} WHERE id = ${agentKeyId}
      RETURNING id
    ), e AS (
      INSERT INTO ledger_entries (wallet_id, agent_key_id, kind, amount_cents, key_amount_cents, job_id, reason)
      VALUES (${walletId}, ${agentKeyId}, 'charge', ${-amountCents}, ${keyCents}, ${jobId}, ${reason})
      RETURNING id
    )
    SELECT (SELECT balance_cents FROM wu) AS balance_after, (SELECT id FROM e) AS entry_id,
           (SELECT count(*) FROM ku) AS keys`.execute(db);
  const w = written.rows[0] as { balance_after: number; entry_id: number };
  return { entryId: Number(w.entry_id), balanceCents: w.balance_after, keyRemainingCents: null };
}
