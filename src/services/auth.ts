/**
 * Resolves a bearer secret to the principal it stands for. Keys are looked up by their
 * SHA-256 digest (the secret itself is never stored) and the digest is compared again in
 * constant time. Revocation takes effect on the next request.
 *
 * The lookup reads the wallet (and key) row in the same query, so the principal carries a
 * snapshot that GET /wallet answers from without a second round trip. Where deps carry a key
 * cache (PGlite only, emptied by every write to these rows: key-cache-for.ts), a repeated
 * lookup is answered from it; every check below runs on a cached row as on a fresh one.
 */
import { sql } from "kysely";
import { ApiError, unauthorized } from "../domain/errors.js";
import { constantTimeEqualHex, hashSecret } from "../domain/ids.js";
import type { Principal, PrincipalSnapshot } from "../domain/principal.js";
import type { CoreDeps } from "./deps.js";
import type { KeyRow, TokenRow } from "./key-cache.js";

export type { Principal, PrincipalSnapshot } from "../domain/principal.js";

const KEY_PATTERN = /^(pmk|pak)_[0-9A-Za-z]{20,64}$/;

/** The principal a wallet key, agent key or access token stands for; unauthorized otherwise. */
export async function authenticate(deps: CoreDeps, secret: string): Promise<Principal> {
  if (!KEY_PATTERN.test(secret)) {
    throw unauthorized("The API key is not valid: expected a pmk_ wallet key or a pak_ agent key.");
  }
  const digest = hashSecret(secret);
  const isWalletKey = secret.startsWith("pmk_");
  const row = await keyRowFor(deps, digest, isWalletKey);
  if (!row || !constantTimeEqualHex(row.key_hash, digest)) {
    throw unauthorized(
      isWalletKey
        ? "Unknown API key; check the key or create a wallet with POST /wallet."
        : "Unknown API key; check the key or ask the wallet owner for a new one.",
    );
  }
  if (row.revoked) {
    throw new ApiError(
      "key_revoked",
      "This agent key has been revoked; ask the wallet owner for a new key.",
    );
  }
  const snapshot: PrincipalSnapshot = {
    balanceCents: row.balance_cents,
    paused: row.paused,
    email: row.email,
  };
  if (!row.key_id) return { kind: "wallet", walletId: row.wallet_id, snapshot };
  snapshot.key = {
    label: row.label ?? "",
    kind: row.kind ?? "agent",
    askBeforeSpending: row.ask_before_spending ?? true,
    askAboveCents: row.ask_above_cents === null ? null : Number(row.ask_above_cents),
    limitCents: row.limit_cents ?? 0,
    spentCents: row.spent_cents ?? 0,
    // cast: the key's columns come from a LEFT JOIN (nullable in its type); key_id was checked above, and created_at is NOT NULL
    createdAt: row.created_at as Date,
    lastUsedAt: row.last_used_at,
  };
  return { kind: "agent", walletId: row.wallet_id, keyId: row.key_id, snapshot };
}

const ACCESS_TOKEN_PATTERN = /^kat_[0-9A-Za-z_-]{20,64}$/;

/**
 * A connected app's OAuth access token, for the resource it was issued for (the /mcp URL) and
 * nowhere else: the principal of its agent key — same limit, same own-jobs rule. Revoking the
 * connection (the key) stops its tokens on the next request.
 */
export async function authenticateAccessToken(
  deps: CoreDeps,
  token: string,
  resource: string,
): Promise<Principal> {
  const invalid = () =>
    unauthorized("The access token is not valid (unknown, expired or revoked); sign in again.");
  if (!ACCESS_TOKEN_PATTERN.test(token)) throw invalid();
  const digest = hashSecret(token);
  const row = await tokenRowFor(deps, digest);
  const now = deps.clock().getTime();
  if (!row || row.token_revoked || new Date(row.expires_at).getTime() <= now) throw invalid();
  if (row.revoked) {
    throw new ApiError("key_revoked", "This connection was revoked by the wallet owner.");
  }
  if (row.resource !== resource)
    throw unauthorized("This access token was issued for another resource.");
  return {
    kind: "agent",
    walletId: row.wallet_id,
    keyId: row.key_id,
    snapshot: {
      balanceCents: row.balance_cents,
      paused: row.paused,
      email: null,
      key: {
        label: row.label,
        kind: row.kind,
        askBeforeSpending: row.ask_before_spending,
        askAboveCents: row.ask_above_cents === null ? null : Number(row.ask_above_cents),
        limitCents: row.limit_cents,
        spentCents: row.spent_cents,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
      },
    },
  };
}

async function readKeyRow(
  deps: CoreDeps,
  digest: string,
  isWalletKey: boolean,
): Promise<KeyRow | undefined> {
  const result = isWalletKey
    ? await sql<KeyRow>`
        SELECT id AS wallet_id, NULL AS key_id, key_hash, false AS revoked, balance_cents, paused, email,
               NULL AS label, NULL AS kind, NULL AS ask_before_spending, NULL AS ask_above_cents, NULL AS limit_cents, NULL AS spent_cents,
               NULL AS created_at, NULL AS last_used_at
        FROM wallets WHERE key_hash = ${digest}`.execute(deps.db)
    : await sql<KeyRow>`
        SELECT k.wallet_id, k.id AS key_id, k.key_hash, k.revoked_at IS NOT NULL AS revoked,
               w.balance_cents, w.paused, NULL AS email, k.label, k.kind, k.ask_before_spending,
               k.ask_above_cents, k.limit_cents, k.spent_cents,
               k.created_at, k.last_used_at
        FROM agent_keys k JOIN wallets w ON w.id = k.wallet_id WHERE k.key_hash = ${digest}`.execute(
        deps.db,
      );
  return result.rows[0];
}

async function readTokenRow(deps: CoreDeps, digest: string): Promise<TokenRow | undefined> {
  const result = await sql<TokenRow>`
    SELECT k.wallet_id, k.id AS key_id, k.revoked_at IS NOT NULL AS revoked, t.resource,
           t.revoked_at IS NOT NULL AS token_revoked, t.expires_at,
           w.balance_cents, w.paused, k.label, k.kind, k.ask_before_spending, k.ask_above_cents,
           k.limit_cents,
           k.spent_cents, k.created_at, k.last_used_at
    FROM oauth_tokens t JOIN agent_keys k ON k.id = t.agent_key_id JOIN wallets w ON w.id = k.wallet_id
    WHERE t.token_hash = ${digest} AND t.kind = 'access'`.execute(deps.db);
  return result.rows[0];
}

/*
 * Cached reads: a hit is the row as last read, unless a write to the auth tables came since.
 * Unknown secrets are not stored (creating a key is such a write, which would clear them).
 */

async function keyRowFor(
  deps: CoreDeps,
  digest: string,
  isWalletKey: boolean,
): Promise<Readonly<KeyRow> | undefined> {
  const hit = deps.keyCache?.get(digest);
  if (hit?.kind === "key") return hit.row;
  const store = deps.keyCache?.beginLookup();
  const row = await readKeyRow(deps, digest, isWalletKey);
  if (row) store?.(digest, { kind: "key", row });
  return row;
}

async function tokenRowFor(
  deps: CoreDeps,
  digest: string,
): Promise<Readonly<TokenRow> | undefined> {
  const hit = deps.keyCache?.get(digest);
  if (hit?.kind === "token") return hit.row;
  const store = deps.keyCache?.beginLookup();
  const row = await readTokenRow(deps, digest);
  if (row) store?.(digest, { kind: "token", row });
  return row;
}
