import { describe, expect, it } from "vitest";
import { type CachedLookup, createKeyCache, type KeyRow } from "./key-cache.js";

const row = (walletId: string, balance = 0): KeyRow => ({
  wallet_id: walletId,
  key_id: null,
  key_hash: `digest-of-${walletId}`,
  revoked: false,
  balance_cents: balance,
  paused: false,
  email: null,
  label: null,
  kind: null,
  ask_before_spending: null,
  ask_above_cents: null,
  limit_cents: null,
  spent_cents: null,
  created_at: null,
  last_used_at: null,
});
const lookup = (walletId: string, balance = 0): CachedLookup => ({
  kind: "key",
  row: row(walletId, balance),
});

describe("key cache", () => {
  it("keeps what a lookup read, under its digest", () => {
    const cache = createKeyCache();
    cache.beginLookup()("d1", lookup("wal_1", 500));
    expect(cache.get("d1")).toEqual(lookup("wal_1", 500));
    expect(cache.get("d2")).toBeUndefined();
  });

  it("drops a store when an invalidation came after the lookup began (the read may predate a write)", () => {
    const cache = createKeyCache();
    const store = cache.beginLookup();
    cache.invalidate();
    store("d1", lookup("wal_1"));
    expect(cache.get("d1")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("forgets every entry on invalidation", () => {
    const cache = createKeyCache();
    cache.beginLookup()("d1", lookup("wal_1"));
    cache.beginLookup()("d2", lookup("wal_2"));
    cache.invalidate();
    expect([cache.get("d1"), cache.get("d2"), cache.size]).toEqual([undefined, undefined, 0]);
  });

  it("is bounded: the least recently used entry goes first", () => {
    const cache = createKeyCache(2);
    cache.beginLookup()("d1", lookup("wal_1"));
    cache.beginLookup()("d2", lookup("wal_2"));
    cache.get("d1"); // d2 is now the least recently used
    cache.beginLookup()("d3", lookup("wal_3"));
    expect(cache.size).toBe(2);
    expect(cache.get("d2")).toBeUndefined();
    expect(cache.get("d1")?.row.wallet_id).toBe("wal_1");
    expect(cache.get("d3")?.row.wallet_id).toBe("wal_3");
  });

  it("keeps its own frozen copy: the caller's row can change, the cached one cannot", () => {
    const cache = createKeyCache();
    const read = row("wal_1", 100);
    cache.beginLookup()("d1", { kind: "key", row: read });
    read.balance_cents = 0;
    const hit = cache.get("d1");
    expect(hit?.row.balance_cents).toBe(100);
    expect(Object.isFrozen(hit?.row)).toBe(true);
  });

  it("refuses a size that is not a positive integer", () => {
    expect(() => createKeyCache(0)).toThrow(RangeError);
    expect(() => createKeyCache(1.5)).toThrow(RangeError);
  });
});
