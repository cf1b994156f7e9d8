/**
 * Prefixed random ids and secrets. 16 random bytes (128 bits) for ids — job ids double as
 * capabilities for unauthenticated status reads — and 32 bytes for secret keys.
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString("hex")}`);
  let out = "";
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), "0");
}

/**
 * Makes ids like `wal_…`, `key_…` or a job kind's `rj_…` (random in production, counted in
 * tests). The prefix is lower-case letters and digits: the core resources' (wal, key, co, tu,
 * req, adj, evt, app, ur, we, up) and each job kind's own (its declared idPrefix).
 */
export type IdGenerator = (prefix: string) => string;

/** A random id: the prefix and 128 bits in base62. */
export const randomId: IdGenerator = (prefix) => `${prefix}_${base62(randomBytes(16))}`;

/** A new wallet (`pmk_`) or agent (`pak_`) key secret: 256 random bits. */
export function newSecret(prefix: "pmk" | "pak"): string {
  return `${prefix}_${base62(randomBytes(32))}`;
}

/** Keys are stored only as SHA-256 hex digests. */
export function hashSecret(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** Compares two hex digests without leaking where they differ. */
export function constantTimeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
