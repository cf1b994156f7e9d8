/**
 * What a database holds, read from PostgreSQL's own catalog (the same on PGlite): its tables
 * with their columns, primary keys and serial sequences, and its foreign keys. The copy is
 * planned from this rather than from a hand-kept list, so a table added by a later migration
 * can never be skipped without anyone noticing.
 */
import { type Kysely, sql } from "kysely";

// cast: the catalog is read before and beside the typed schema (any table, any column)
// biome-ignore lint/suspicious/noExplicitAny: the catalog is read before and beside the typed schema
export type AnyDb = Kysely<any>;

interface Column {
  name: string;
  /** As `format_type` spells it ("bigint", "timestamp with time zone"): usable in a cast. */
  type: string;
}

/** A table's columns as the catalogue reports them. */
export interface TableShape {
  name: string;
  columns: Column[];
  /** Primary key columns in key order; empty when the table has none. */
  key: Column[];
  /** Columns fed by a sequence (bigserial, identity) and that sequence's qualified name. */
  sequences: { column: string; sequence: string }[];
}

/** A foreign key between two tables (the copy order follows them). */
export interface ForeignKey {
  child: string;
  parent: string;
}

interface ColumnRow {
  table_name: string;
  column_name: string;
  type: string;
  key_position: number | null;
  sequence: string | null;
}

/** Every table of the current schema (the one unqualified names resolve to), by name. */
export async function readTables(db: AnyDb): Promise<Map<string, TableShape>> {
  const rows = await sql<ColumnRow>`
    SELECT c.relname AS table_name, a.attname AS column_name,
           format_type(a.atttypid, a.atttypmod) AS type,
           array_position(i.indkey::int2[], a.attnum) AS key_position,
           pg_get_serial_sequence(quote_ident(n.nspname) || '.' || quote_ident(c.relname),
                                  a.attname) AS sequence
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
    ORDER BY c.relname, a.attnum`.execute(db);
  const tables = new Map<string, TableShape>();
  const keyOrder = new Map<string, Map<string, number>>();
  for (const r of rows.rows) {
    let t = tables.get(r.table_name);
    if (!t) {
      t = { name: r.table_name, columns: [], key: [], sequences: [] };
      tables.set(r.table_name, t);
      keyOrder.set(r.table_name, new Map());
    }
    const column = { name: r.column_name, type: r.type };
    t.columns.push(column);
    if (r.key_position !== null) {
      t.key.push(column);
      keyOrder.get(r.table_name)?.set(r.column_name, Number(r.key_position));
    }
    if (r.sequence !== null) t.sequences.push({ column: r.column_name, sequence: r.sequence });
  }
  for (const t of tables.values()) {
    const order = keyOrder.get(t.name);
    t.key.sort((a, b) => (order?.get(a.name) ?? 0) - (order?.get(b.name) ?? 0));
  }
  return tables;
}

/** Foreign keys between tables of the current schema (child references parent). */
export async function readForeignKeys(db: AnyDb): Promise<ForeignKey[]> {
  const rows = await sql<ForeignKey>`
    SELECT DISTINCT child.relname AS child, parent.relname AS parent
    FROM pg_constraint con
    JOIN pg_class child ON child.oid = con.conrelid
    JOIN pg_class parent ON parent.oid = con.confrelid
    JOIN pg_namespace n ON n.oid = child.relnamespace
    WHERE con.contype = 'f' AND n.nspname = current_schema()
    ORDER BY 1, 2`.execute(db);
  return rows.rows;
}

/** A table's columns as one comparable string: name and type, in table order. */
export function columnSignature(t: TableShape): string {
  return t.columns.map((c) => `${c.name} ${c.type}`).join(", ");
}
