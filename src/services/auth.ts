/**
 * Resolves a bearer secret to the principal it stands for. Keys are looked up by their
 * SHA-256 digest (the secret itself is never stored) and the digest is compared again in
 * constant time. Revocation takes effect on the next request: nothing is cached.
 *
 * The lookup reads the wallet (and key) row in the same query, so the principal carries a
 * snapshot that GET /wallet answers from without a second round trip.
 */
import { sql } from "kysely";
import { unauthorized } from "../domain/errors.js";
import { constantTimeEqualHex, hashSecret } from "../domain/ids.js";
import type { CoreDeps } from "./deps.js";

export interface PrincipalSnapshot {
  balanceCents: number;
  paused: boolean;
  email: string | null;
  key?: {
    label: string;
    kind: "agent" | "connected_app";
    askBeforeSpending: boolean;
    limitCents: number;
    spentCents: number;
    createdAt: Date;
    lastUsedAt: Date | null;
  };
}

export type Principal = (
  | { kind: "wallet"; walletId: string }
  | { kind: "agent"; walletId: string; keyId: string }
) & {
  /** The rows as read while authenticating this request (not a cache across requests). */
  snapshot?: PrincipalSnapshot;
};

export const KEY_PATTERN = /^(pmk|pak)_[0-9A-Za-z]{20,64}$/;

interface AuthRow {
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
  limit_cents: number | null;
  spent_cents: number | null;
  created_at: Date | null;
  last_used_at: Date | null;
}

export async function authenticate(deps: CoreDeps, secret: string): Promise<Principal> {
  if (!KEY_PATTERN.test(secret)) {
    throw unauthorized("The API key is not valid: expected a pmk_ wallet key or a pak_ agent key.");
  }
  const digest = hashSecret(secret);
  const isWalletKey = secret.startsWith("pmk_");
  const result = isWalletKey
    ? await sql<AuthRow>`
        SELECT id AS wallet_id, NULL AS key_id, key_hash, false AS revoked, balance_cents, paused, email,
               NULL AS label, NULL AS kind, NULL AS ask_before_spending, NULL AS limit_cents, NULL AS spent_cents,
               NULL AS created_at, NULL AS last_used_at
        FROM wallets WHERE key_hash = ${digest}`.execute(deps.db)
    : await sql<AuthRow>`
        SELECT k.wallet_id, k.id AS key_id, k.key_hash, k.revoked_at IS NOT NULL AS revoked,
               w.balance_cents, w.paused, NULL AS email, k.label, k.kind, k.ask_before_spending,
               k.limit_cents, k.spent_cents,
               k.created_at, k.last_used_at
        FROM agent_keys k JOIN wallets w ON w.id = k.wallet_id WHERE k.key_hash = ${digest}`.execute(
        deps.db,
      );
  const row = result.rows[0];
  if (!row || !constantTimeEqualHex(row.key_hash, digest)) {
    throw unauthorized(
      isWalletKey
        ? "Unknown API key; check the key or create a wallet with POST /wallet."
        : "Unknown API key; check the key or ask the wallet owner for a new one.",
    );
  }
  if (row.revoked) {
    throw unauthorized("This agent key has been revoked; ask the wallet owner for a new key.");
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
    limitCents: row.limit_cents ?? 0,
    spentCents: row.spent_cents ?? 0,
    createdAt: row.created_at as Date,
    lastUsedAt: row.last_used_at,
  };
  return { kind: "agent", walletId: row.wallet_id, keyId: row.key_id, snapshot };
}

export const ACCESS_TOKEN_PATTERN = /^kat_[0-9A-Za-z_-]{20,64}$/;

interface TokenRow {
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
  limit_cents: number;
  spent_cents: number;
  created_at: Date;
  last_used_at: Date | null;
}

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
  const result = await sql<TokenRow>`
    SELECT k.wallet_id, k.id AS key_id, k.revoked_at IS NOT NULL AS revoked, t.resource,
           t.revoked_at IS NOT NULL AS token_revoked, t.expires_at,
           w.balance_cents, w.paused, k.label, k.kind, k.ask_before_spending, k.limit_cents,
           k.spent_cents, k.created_at, k.last_used_at
    FROM oauth_tokens t JOIN agent_keys k ON k.id = t.agent_key_id JOIN wallets w ON w.id = k.wallet_id
    WHERE t.token_hash = ${hashSecret(token)} AND t.kind = 'access'`.execute(deps.db);
  const row = result.rows[0];
  const now = deps.clock().getTime();
  if (!row || row.token_revoked || new Date(row.expires_at).getTime() <= now) throw invalid();
  if (row.revoked) throw unauthorized("This connection was revoked by the wallet owner.");
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
        limitCents: row.limit_cents,
        spentCents: row.spent_cents,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
      },
    },
  };
}
