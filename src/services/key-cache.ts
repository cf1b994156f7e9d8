/**
 * Key lookups remembered in process: the rows one bearer-secret lookup reads (wallet, key,
 * OAuth token), by the secret's SHA-256 digest — never the secret itself — in a bounded LRU.
 *
 * Only a deployment where this process is the only writer may use it (PGlite: the data-dir
 * lock guarantees it; see key-cache-for.ts, which also clears it on every write to the tables
 * these rows come from). The rows carry money (balance, spent), so the cache is not "identity
 * only": it is exact because every statement that writes wallets, agent_keys or oauth_tokens
 * — a charge, a refund, a top-up, a pause, a revoke, a limit change — empties it.
 *
 * A lookup that read the database while such a write happened must not store what it read:
 * `beginLookup` takes the generation before the read, and the store is dropped if any
 * invalidation came in between (the read may predate the write).
 */

/** What `authenticate` reads for a pmk_ or pak_ key. */
export interface KeyRow {
  wallet_id: string;
  key_id: string | null;
  key_hash: string;
  revoked: boolean;
  balance_cents: number;
  paused: boolean;
  email: string | null;
  label: string | null;
  kind: "agent" | "connected_app" | null;
  ask_before_spending: boolean | null;
  ask_above_cents: number | null;
  limit_cents: number | null;
  spent_cents: number | null;
  created_at: Date | null;
  last_used_at: Date | null;
}

/** What `authenticateAccessToken` reads for a kat_ OAuth access token. */
export interface TokenRow {
  wallet_id: string;
  key_id: string;
  revoked: boolean;
  resource: string;
  token_revoked: boolean;
  expires_at: Date;
  balance_cents: number;
  paused: boolean;
  label: string;
  kind: "agent" | "connected_app";
  ask_before_spending: boolean;
  ask_above_cents: number | null;
  limit_cents: number;
  spent_cents: number;
  created_at: Date;
  last_used_at: Date | null;
}

export type CachedLookup =
  | { kind: "key"; row: Readonly<KeyRow> }
  | { kind: "token"; row: Readonly<TokenRow> };

/** Recent key lookups by digest, dropped when keys or wallets change. */
export interface KeyCache {
  /** The lookup last stored for this digest, unless an invalidation came since. */
  get(digest: string): CachedLookup | undefined;
  /**
   * Call before reading the database; the function returned stores what was read, unless an
   * invalidation came in between.
   */
  beginLookup(): (digest: string, lookup: CachedLookup) => void;
  /** A write touched the rows lookups read: forget every entry. */
  invalidate(): void;
  readonly size: number;
}

/** Enough for every active key of a busy instance; an entry is a few hundred bytes. */
const DEFAULT_KEY_CACHE_ENTRIES = 10_000;

export function createKeyCache(maxEntries = DEFAULT_KEY_CACHE_ENTRIES): KeyCache {
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
  }
  // A Map iterates in insertion order: re-inserting on a hit keeps the least recent first.
  const entries = new Map<string, CachedLookup>();
  let generation = 0;
  return {
    get(digest) {
      const hit = entries.get(digest);
      if (hit) {
        entries.delete(digest);
        entries.set(digest, hit);
      }
      return hit;
    },
    beginLookup() {
      const startedAt = generation;
      return (digest, lookup) => {
        if (generation !== startedAt) return;
        entries.delete(digest);
        // cast: kind and row are taken from one lookup, so they match; TS cannot correlate two fields of a union taken apart
        entries.set(digest, {
          kind: lookup.kind,
          row: Object.freeze({ ...lookup.row }),
        } as CachedLookup);
        if (entries.size > maxEntries) {
          const oldest = entries.keys().next().value;
          if (oldest !== undefined) entries.delete(oldest);
        }
      };
    },
    invalidate() {
      generation++;
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
