/**
 * Checks that the target holds what the source holds, before the copy commits: the same rows
 * in every table (count and a digest of every row's content), the same Σ ledger amount for
 * every wallet and that sum equal to its balance on both sides, the target reconciled, and
 * every sequence past the ids in use. Any problem rolls the whole copy back.
 */
import { sql } from "kysely";
import { type ReconcileReport, reconcile } from "../reconcile.js";
import type { AnyDb, TableShape } from "./catalog.js";
import type { LedgerReport, Problem, ReconcileSummary, TableReport } from "./report.js";

/** How many wallets with a problem are named before the rest are only counted. */
const MAX_NAMED = 20;
const WALLET_PAGE = 2000;

/** An order-free digest of a table's rows, to compare source and target. */
export interface TableDigest {
  rows: number;
  /** Σ of a 60-bit slice of each row's md5: order-free, bounded, and equal only for equal rows. */
  digest: string;
}

/**
 * Row count and content digest of a table. The row is hashed as jsonb text, whose key order
 * does not depend on column order; the session must be in UTC so timestamps print alike.
 */
async function digestTable(db: AnyDb, table: string): Promise<TableDigest> {
  const r = await sql<{ n: string; digest: string }>`
    SELECT count(*)::text AS n,
           COALESCE(sum(('x' || substr(md5(to_jsonb(t)::text), 1, 15))::bit(60)::bigint), 0)::text
             AS digest
    FROM ${sql.id(table)} AS t`.execute(db);
  const row = r.rows[0];
  return { rows: Number(row?.n ?? 0), digest: row?.digest ?? "0" };
}

export async function digestTables(
  db: AnyDb,
  plan: readonly TableShape[],
): Promise<Map<string, TableDigest>> {
  const out = new Map<string, TableDigest>();
  for (const t of plan) out.set(t.name, await digestTable(db, t.name));
  return out;
}

/** Compares each copied table's count and digest on both sides. */
export function compareTables(
  plan: readonly TableShape[],
  source: ReadonlyMap<string, TableDigest>,
  target: ReadonlyMap<string, TableDigest>,
): { tables: TableReport[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const tables = plan.map((t) => {
    const s = source.get(t.name) ?? { rows: 0, digest: "0" };
    const d = target.get(t.name) ?? { rows: 0, digest: "0" };
    if (s.rows !== d.rows) {
      problems.push({
        check: "rows",
        subject: t.name,
        detail: `${s.rows} rows in the source, ${d.rows} in the target`,
      });
    } else if (s.digest !== d.digest) {
      problems.push({ check: "content", subject: t.name, detail: "row contents differ" });
    }
    return {
      name: t.name,
      source_rows: s.rows,
      target_rows: d.rows,
      content_match: s.digest === d.digest,
    };
  });
  return { tables, problems };
}

/** Counts and sums of the ledger, for the report. */
export async function ledgerTotals(db: AnyDb): Promise<LedgerReport> {
  const r = await sql<{ wallets: string; balances: string; entries: string; sum: string }>`
    SELECT (SELECT count(*) FROM wallets)::text AS wallets,
           (SELECT COALESCE(sum(balance_cents), 0) FROM wallets)::text AS balances,
           (SELECT count(*) FROM ledger_entries)::text AS entries,
           (SELECT COALESCE(sum(amount_cents), 0) FROM ledger_entries)::text AS sum`.execute(db);
  const row = r.rows[0];
  return {
    wallets: Number(row?.wallets ?? 0),
    entries: Number(row?.entries ?? 0),
    balances_cents: Number(row?.balances ?? 0),
    entries_cents: Number(row?.sum ?? 0),
  };
}

interface WalletSum {
  id: string;
  balance: string;
  sum: string;
}

/** A page of wallets with their balance and Σ entries, in byte order (the same on both sides). */
async function walletPage(db: AnyDb, after: string): Promise<WalletSum[]> {
  const r = await sql<WalletSum>`
    SELECT w.id, w.balance_cents::text AS balance,
           (SELECT COALESCE(sum(e.amount_cents), 0) FROM ledger_entries e
             WHERE e.wallet_id = w.id)::text AS sum
    FROM wallets w
    WHERE w.id COLLATE "C" > ${after}
    ORDER BY w.id COLLATE "C"
    LIMIT ${WALLET_PAGE}`.execute(db);
  return r.rows;
}

/**
 * Walks the wallets of both sides together: the same wallets, and for each the same balance
 * and Σ ledger amounts on both sides, and that sum equal to the balance.
 */
export async function compareWalletSums(source: AnyDb, target: AnyDb): Promise<Problem[]> {
  const problems: Problem[] = [];
  let unnamed = 0;
  const report = (subject: string, detail: string) => {
    if (problems.length < MAX_NAMED) problems.push({ check: "ledger", subject, detail });
    else unnamed++;
  };
  let after = "";
  for (;;) {
    const [s, t] = await Promise.all([walletPage(source, after), walletPage(target, after)]);
    for (let i = 0; i < Math.max(s.length, t.length); i++) {
      const a = s[i];
      const b = t[i];
      if (!a || !b || a.id !== b.id) {
        report(a?.id ?? b?.id ?? "?", "the wallets differ between source and target");
        return withUnnamed(problems, unnamed);
      }
      if (a.sum !== a.balance) report(a.id, `source balance ${a.balance} ≠ Σ entries ${a.sum}`);
      if (b.sum !== b.balance) report(b.id, `target balance ${b.balance} ≠ Σ entries ${b.sum}`);
      if (a.sum !== b.sum || a.balance !== b.balance) {
        report(a.id, `source ${a.balance}/${a.sum}, target ${b.balance}/${b.sum} (balance/Σ)`);
      }
    }
    const last = s[s.length - 1];
    if (s.length < WALLET_PAGE || !last) return withUnnamed(problems, unnamed);
    after = last.id;
  }
}

function withUnnamed(problems: Problem[], unnamed: number): Problem[] {
  if (unnamed === 0) return problems;
  return [
    ...problems,
    { check: "ledger", subject: "…", detail: `${unnamed} more wallet problems` },
  ];
}

/** Every sequence at or past the highest value its column holds. */
export async function checkSequences(
  db: AnyDb,
  plan: readonly TableShape[],
  targetTables: ReadonlyMap<string, TableShape>,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const table of plan) {
    for (const { column, sequence } of targetTables.get(table.name)?.sequences ?? []) {
      const r = await sql<{ behind: boolean }>`
        SELECT COALESCE(max(${sql.id(column)}) > pg_sequence_last_value(${sequence}::regclass),
                        false) AS behind
        FROM ${sql.id(table.name)}`.execute(db);
      if (r.rows[0]?.behind) {
        problems.push({
          check: "sequence",
          subject: `${table.name}.${column}`,
          detail: "the sequence is behind the copied ids",
        });
      }
    }
  }
  return problems;
}

/** Runs reconcile; the summary for the report and its drift as problems. */
export async function reconcileSide(
  db: AnyDb,
  side: "source" | "target",
): Promise<{ summary: ReconcileSummary; problems: Problem[] }> {
  const r: ReconcileReport = await reconcile(db);
  return {
    summary: {
      ok: r.ok,
      wallets_checked: r.wallets_checked,
      keys_checked: r.keys_checked,
      entries_checked: r.entries_checked,
      drift: r.drift.length,
    },
    problems: r.drift.slice(0, MAX_NAMED).map((d) => ({
      check: "reconcile" as const,
      subject: d.id,
      detail: `${side}: ${d.kind} expected ${d.expected}, found ${d.actual}`,
    })),
  };
}
