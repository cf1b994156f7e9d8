/**
 * Checks every money invariant against the ledger and reports drift instead of fixing it:
 * a correction is the operator's decision and is made as a new adjustment entry.
 *   balance = Σ amount_cents of the wallet's entries;  balance ≥ 0
 *   spent   = Σ key_amount_cents of the key's entries; 0 ≤ spent ≤ limit
 *   every job has at most one charge, one part given back (a job-tied adjustment: measured
 *   shorter) and one refund; the part and the refund together never exceed the charge, and a
 *   refunded job got back exactly its charge
 */
import { sql } from "kysely";
import type { Db } from "./ledger.js";

interface Drift {
  kind: "wallet_balance" | "negative_balance" | "key_spent" | "key_over_limit" | "refund_mismatch";
  id: string;
  expected: number;
  actual: number;
}

/** Whether every balance equals the sum of its ledger, with the wallets that do not. */
export interface ReconcileReport {
  ok: boolean;
  wallets_checked: number;
  keys_checked: number;
  entries_checked: number;
  drift: Drift[];
}

/** Checks every wallet's balance against its ledger entries. */
export async function reconcile(db: Db): Promise<ReconcileReport> {
  const walletRows = await sql<{ id: string; balance: number; sum: number }>`
    SELECT w.id, w.balance_cents AS balance, COALESCE(SUM(e.amount_cents), 0)::bigint AS sum
    FROM wallets w LEFT JOIN ledger_entries e ON e.wallet_id = w.id
    GROUP BY w.id, w.balance_cents`.execute(db);
  const keyRows = await sql<{ id: string; spent: number; limit: number; sum: number }>`
    SELECT k.id, k.spent_cents AS spent, k.limit_cents AS "limit",
           COALESCE(SUM(e.key_amount_cents), 0)::bigint AS sum
    FROM agent_keys k LEFT JOIN ledger_entries e ON e.agent_key_id = k.id
    GROUP BY k.id, k.spent_cents, k.limit_cents`.execute(db);
  const refundRows = await sql<{
    job_id: string;
    charged: number | null;
    returned: number;
    refunded: boolean;
  }>`
    SELECT job_id, -SUM(amount_cents) FILTER (WHERE kind = 'charge') AS charged,
           SUM(amount_cents) FILTER (WHERE kind IN ('refund', 'adjustment')) AS returned,
           bool_or(kind = 'refund') AS refunded
    FROM ledger_entries WHERE job_id IS NOT NULL
    GROUP BY job_id
    HAVING bool_or(kind IN ('refund', 'adjustment'))`.execute(db);
  const entries = await sql<{
    n: number;
  }>`SELECT count(*)::bigint AS n FROM ledger_entries`.execute(db);

  const drift: Drift[] = [];
  for (const w of walletRows.rows) {
    if (Number(w.balance) !== Number(w.sum)) {
      drift.push({ kind: "wallet_balance", id: w.id, expected: Number(w.sum), actual: w.balance });
    }
    if (w.balance < 0)
      drift.push({ kind: "negative_balance", id: w.id, expected: 0, actual: w.balance });
  }
  for (const k of keyRows.rows) {
    if (Number(k.spent) !== Number(k.sum)) {
      drift.push({ kind: "key_spent", id: k.id, expected: Number(k.sum), actual: k.spent });
    }
    if (k.spent < 0 || k.spent > k.limit) {
      drift.push({ kind: "key_over_limit", id: k.id, expected: k.limit, actual: k.spent });
    }
  }
  for (const r of refundRows.rows) {
    const charged = Number(r.charged ?? 0);
    const returned = Number(r.returned);
    // Refunded: the whole charge is back. Not (yet): only part of it, never all or more.
    const ok = r.charged !== null && (r.refunded ? returned === charged : returned < charged);
    if (!ok)
      drift.push({ kind: "refund_mismatch", id: r.job_id, expected: charged, actual: returned });
  }
  return {
    ok: drift.length === 0,
    wallets_checked: walletRows.rows.length,
    keys_checked: keyRows.rows.length,
    entries_checked: Number(entries.rows[0]?.n ?? 0),
    drift,
  };
}
