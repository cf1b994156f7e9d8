/**
 * Copies one table's rows from the source to the target in pages, so memory stays bounded
 * however long the ledger is. A page is read in primary-key order after the last key seen
 * (keyset paging: every page is an index range scan, never an OFFSET that rescans), each row
 * as its JSON text, and written with `json_populate_recordset` into the same columns. The
 * values never pass through JavaScript types, so nothing is rounded on the way: bigint
 * amounts, microsecond timestamps and doubles arrive exactly as they left.
 */

import { sql } from "kysely";
import { last as lastOf } from "../../domain/checked-index.js";
import type { AnyDb, TableShape } from "./catalog.js";

/** How a table is copied: rows per page. */
export interface CopyOptions {
  /** Rows read per page. */
  batchRows: number;
  /** Largest JSON text sent in one INSERT; a page with big rows is sent in several. */
  maxBatchChars: number;
  /** Called after every page with the rows copied so far. */
  onRows?: (table: string, rows: number) => void;
}

export const DEFAULT_COPY_OPTIONS: CopyOptions = {
  batchRows: 1000,
  maxBatchChars: 4 * 1024 * 1024,
};

interface PageRow {
  row: string;
  [key: `k${number}`]: string;
}

/** Copies every row of `table`; returns how many. The target must be inside a transaction. */
export async function copyTable(
  source: AnyDb,
  target: AnyDb,
  table: TableShape,
  opts: CopyOptions = DEFAULT_COPY_OPTIONS,
): Promise<number> {
  let after: string[] | null = null;
  let copied = 0;
  for (;;) {
    const page = await readPage(source, table, after, opts.batchRows);
    if (page.length === 0) return copied;
    await insertRows(
      target,
      table,
      page.map((r) => r.row),
      opts.maxBatchChars,
    );
    copied += page.length;
    opts.onRows?.(table.name, copied);
    const last = lastOf(page);
    // cast: every page row carries k0…k(n−1), one per key column, by the query above
    after = table.key.map((_, i) => last[`k${i}`] as string);
    if (page.length < opts.batchRows) return copied;
  }
}

async function readPage(
  db: AnyDb,
  table: TableShape,
  after: string[] | null,
  limit: number,
): Promise<PageRow[]> {
  const keyColumns = sql.join(table.key.map((k) => sql`t.${sql.id(k.name)}`));
  const keyTexts = sql.join(
    table.key.map((k, i) => sql`t.${sql.id(k.name)}::text AS ${sql.id(`k${i}`)}`),
  );
  // The key travels as text and is cast back to its column type, so the comparison is the
  // column's own (bigint order for ledger ids, the collation of text ids).
  const where = after
    ? sql`WHERE (${keyColumns}) > (${sql.join(
        table.key.map((k, i) => sql`${after[i]}::${sql.raw(k.type)}`),
      )})`
    : sql``;
  const rows = await sql<PageRow>`
    SELECT row_to_json(t)::text AS row, ${keyTexts}
    FROM ${sql.id(table.name)} AS t ${where}
    ORDER BY ${keyColumns}
    LIMIT ${limit}`.execute(db);
  return rows.rows;
}

async function insertRows(
  db: AnyDb,
  table: TableShape,
  rows: string[],
  maxChars: number,
): Promise<void> {
  let chunk: string[] = [];
  let chars = 0;
  for (const row of rows) {
    if (chunk.length > 0 && chars + row.length > maxChars) {
      await insertJson(db, table, chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push(row);
    chars += row.length + 1;
  }
  if (chunk.length > 0) await insertJson(db, table, chunk);
}

async function insertJson(db: AnyDb, table: TableShape, rows: string[]): Promise<void> {
  const columns = sql.join(table.columns.map((c) => sql.id(c.name)));
  await sql`
    INSERT INTO ${sql.id(table.name)} (${columns})
    SELECT ${columns} FROM json_populate_recordset(NULL::${sql.id(table.name)}, ${`[${rows.join(",")}]`}::json)`.execute(
    db,
  );
}

/**
 * Moves every serial sequence of the copied tables past the highest value in use — the copied
 * maximum or the source sequence's own position, whichever is higher — so the next ledger
 * entry on the target can never reuse an id. Returns each sequence's new value.
 */
export async function advanceSequences(
  source: AnyDb,
  target: AnyDb,
  plan: readonly TableShape[],
  targetTables: ReadonlyMap<string, TableShape>,
): Promise<{ sequence: string; value: string }[]> {
  const moved: { sequence: string; value: string }[] = [];
  for (const table of plan) {
    for (const { column, sequence } of table.sequences) {
      const targetSeq = targetTables
        .get(table.name)
        ?.sequences.find((s) => s.column === column)?.sequence;
      if (!targetSeq) throw new Error(`the target has no sequence for ${table.name}.${column}`);
      const used = await sql<{ v: string | null }>`
        SELECT pg_sequence_last_value(${sequence}::regclass)::text AS v`.execute(source);
      const top = await sql<{ v: string }>`
        SELECT GREATEST(COALESCE(max(${sql.id(column)}), 0),
                        COALESCE(${used.rows[0]?.v ?? null}::bigint, 0))::text AS v
        FROM ${sql.id(table.name)}`.execute(target);
      const value = top.rows[0]?.v ?? "0";
      // A sequence starts at 1: with nothing used there is nothing to move past.
      if (value === "0") continue;
      await sql`SELECT setval(${targetSeq}::regclass, ${value}::bigint, true)`.execute(target);
      moved.push({ sequence: `${table.name}.${column}`, value });
    }
  }
  return moved;
}
