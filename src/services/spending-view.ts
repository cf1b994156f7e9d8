/**
 * What a wallet spent per day and per key over the last days (GET /wallet/spending, the
 * console's spending chart): charges less what went back (refunds, measured differences), from
 * the ledger, by UTC day.
 */
import { sql } from "kysely";
import type { CoreDeps } from "./deps.js";

/** One key's (or the wallet key's own, `agent_key_id` null) net spending on one UTC day. */
interface SpendingCell {
  day: string;
  agent_key_id: string | null;
  spent_cents: number;
}

/** The days covered, oldest first (YYYY-MM-DD, UTC), and what was spent on them. */
export interface SpendingView {
  days: string[];
  spending: SpendingCell[];
}

const DAY_MS = 24 * 3600_000;

/** Net spending per UTC day and key over the last `days` days, today included. */
export async function spendingByDay(
  deps: CoreDeps,
  walletId: string,
  days = 30,
): Promise<SpendingView> {
  const today = Date.parse(deps.clock().toISOString().slice(0, 10));
  const list = Array.from({ length: days }, (_, i) =>
    new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
  const day = sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  const rows = await deps.db
    .selectFrom("ledger_entries")
    .select([day.as("day"), "agent_key_id", sql<string>`sum(-amount_cents)`.as("cents")])
    .where("wallet_id", "=", walletId)
    .where("kind", "in", ["charge", "refund"])
    .where("created_at", ">=", new Date(today - (days - 1) * DAY_MS))
    .groupBy([day, "agent_key_id"])
    .execute();
  return {
    days: list,
    spending: rows
      .map((r) => ({ day: r.day, agent_key_id: r.agent_key_id, spent_cents: Number(r.cents) }))
      .filter((c) => c.spent_cents !== 0 && list.includes(c.day)),
  };
}
