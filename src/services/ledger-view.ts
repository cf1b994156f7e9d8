/**
 * The wallet's ledger as its owner reads it (GET /wallet/ledger): every entry, newest first, a
 * page at a time.
 */
import type { LedgerKind } from "../db/schema.js";
import { displayCents } from "../domain/money.js";
import type { CoreDeps } from "./deps.js";

const LEDGER_PAGE = 50;

interface LedgerEntryView {
  id: number;
  kind: LedgerKind;
  amount_cents: number;
  display: string;
  key_amount_cents: number;
  agent_key_id: string | null;
  job_id: string | null;
  reference: string | null;
  reason: string;
  created_at: string;
}

/** A page of a wallet's ledger, newest first. */
export interface LedgerPage {
  entries: LedgerEntryView[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  next_before: number | null;
}

/** A page of a wallet's ledger entries, newest first. */
export async function listLedger(
  deps: CoreDeps,
  walletId: string,
  opts: { before?: number; limit?: number } = {},
): Promise<LedgerPage> {
  const limit = Math.min(Math.max(opts.limit ?? LEDGER_PAGE, 1), 200);
  let q = deps.db
    .selectFrom("ledger_entries")
    .selectAll()
    .where("wallet_id", "=", walletId)
    .orderBy("id", "desc")
    .limit(limit + 1);
  if (opts.before !== undefined) q = q.where("id", "<", opts.before);
  const rows = await q.execute();
  const page = rows.slice(0, limit);
  return {
    entries: page.map((r) => ({
      id: Number(r.id),
      kind: r.kind,
      amount_cents: Number(r.amount_cents),
      display: displayCents(Number(r.amount_cents)),
      key_amount_cents: Number(r.key_amount_cents),
      agent_key_id: r.agent_key_id,
      job_id: r.job_id,
      reference: r.reference,
      reason: r.reason,
      created_at: new Date(r.created_at).toISOString(),
    })),
    next_before: rows.length > limit ? Number(page.at(-1)?.id) : null,
  };
}
