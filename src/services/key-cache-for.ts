/**
 * Whether a deployment caches key lookups, and the hook that keeps the cache exact.
 *
 * On PGlite this process is the only one that can write the database (the data-dir lock), so
 * it sees every write: the database handed back runs each statement past a Kysely plugin that
 * empties the cache once any statement writing wallets, agent_keys or oauth_tokens has run.
 * That covers every mutation a lookup depends on — revoke, pause, limit change, charge,
 * refund, top-up, token revoke — including ones written after this file, with no hook to
 * remember at each call site. On PostgreSQL another node may revoke a key or spend from the
 * wallet at any time, so there is no cache: every request reads the rows.
 *
 * Why after the statement, and why that is enough: a lookup's store is dropped if an
 * invalidation came after the lookup began (key-cache.ts), and an entry stored earlier is
 * cleared by the invalidation. Inside a transaction the invalidation comes before COMMIT, but
 * PGlite has one connection, held by the transaction until it ends, so no lookup can read in
 * between. (A statement cancelled through an abort signal would finish unseen; none is.)
 */
import type { KyselyPlugin, OperationNode, RootOperationNode } from "kysely";
import type { Database } from "../db/database.js";
import { createKeyCache, type KeyCache } from "./key-cache.js";

/** The tables an authentication lookup reads. */
const AUTH_TABLES = new Set(["wallets", "agent_keys", "oauth_tokens"]);
const AUTH_TABLE_WORD = /\b(wallets|agent_keys|oauth_tokens)\b/i;
const WRITE_WORD = /\b(insert|update|delete|merge|truncate|copy|call|do)\b/i;
/** Schema changes may drop or rewrite any table, named or not (DROP SCHEMA … CASCADE). */
const DDL_WORD = /\b(create|alter|drop|truncate|comment|grant|revoke)\b/i;
const WRITE_NODES = new Set([
  "InsertQueryNode",
  "UpdateQueryNode",
  "DeleteQueryNode",
  "MergeQueryNode",
]);
const DDL_NODE = /^(Create|Alter|Drop|Refresh)\w*Node$/;

interface CachedDatabase<D extends Database> {
  /** The database to build everything on: the same one, watched when there is a cache. */
  database: D;
  keyCache?: KeyCache;
}

/** A key cache on PGlite (with `database` watched for writes that invalidate it); none on PostgreSQL. */
export function keyCacheFor<D extends Database>(
  database: D,
  maxEntries?: number,
): CachedDatabase<D> {
  if (database.backend !== "pglite") return { database };
  const keyCache = createKeyCache(maxEntries);
  const watched: D = {
    ...database,
    db: database.db.withPlugin(invalidateOnAuthWrites(keyCache)),
    async rawQuery(text: string, params: readonly unknown[]) {
      try {
        return await database.rawQuery(text, params);
      } finally {
        if (textMayWriteAuthTables(text)) keyCache.invalidate();
      }
    },
    async rawTransaction(statements) {
      try {
        return await database.rawTransaction(statements);
      } finally {
        if (statements.some((s) => textMayWriteAuthTables(s.text))) keyCache.invalidate();
      }
    },
  };
  return { database: watched, keyCache };
}

/** The Kysely plugin: remembers which queries write the auth tables, invalidates after each. */
function invalidateOnAuthWrites(cache: KeyCache): KyselyPlugin {
  const writing = new WeakSet<object>();
  return {
    transformQuery({ node, queryId }) {
      if (mayWriteAuthTables(node)) writing.add(queryId);
      return node;
    },
    async transformResult({ result, queryId }) {
      if (writing.has(queryId)) cache.invalidate();
      return result;
    },
  };
}

/**
 * True when a statement may change a row an authentication lookup reads: it writes (or
 * changes the schema) and names one of the auth tables anywhere — in a builder's tables or
 * in raw SQL text. Errs towards true: an extra invalidation costs one lookup, a missed one
 * would serve a revoked key.
 */
export function mayWriteAuthTables(root: RootOperationNode): boolean {
  const seen = { writes: false, names: false, ddl: false };
  visit(root, seen);
  return seen.ddl || (seen.writes && seen.names);
}

function textMayWriteAuthTables(text: string): boolean {
  return DDL_WORD.test(text) || (WRITE_WORD.test(text) && AUTH_TABLE_WORD.test(text));
}

interface Seen {
  writes: boolean;
  names: boolean;
  ddl: boolean;
}

function visit(value: unknown, seen: Seen): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item, seen);
    return;
  }
  if (value === null || typeof value !== "object") return;
  // cast: Kysely's operation tree: plain objects tagged by `kind`, read field by field
  const node = value as OperationNode & Record<string, unknown>;
  switch (node.kind) {
    // Bound values are data, never SQL: skip them (they may be large).
    case "ValueNode":
    case "PrimitiveValueListNode":
      return;
    case "IdentifierNode":
      if (AUTH_TABLES.has(String(node.name).toLowerCase())) seen.names = true;
      return;
    case "RawNode": {
      // cast: a RawNode's sqlFragments are its SQL text pieces (Kysely's type)
      const text = (node.sqlFragments as readonly string[]).join(" ");
      if (DDL_WORD.test(text)) seen.ddl = true;
      if (WRITE_WORD.test(text)) seen.writes = true;
      if (AUTH_TABLE_WORD.test(text)) seen.names = true;
      visit(node.parameters, seen);
      return;
    }
  }
  if (typeof node.kind === "string") {
    if (WRITE_NODES.has(node.kind)) seen.writes = true;
    else if (DDL_NODE.test(node.kind)) seen.ddl = true;
  }
  for (const key in node) {
    if (key !== "kind") visit(node[key], seen);
  }
}
