/**
 * Authorization codes and tokens of connected apps: codes single-use and short-lived, bound to
 * the client, redirect URI, PKCE challenge (S256) and resource; opaque access tokens (1 hour)
 * and refresh tokens (30 days), all stored as SHA-256 digests and bound to the connected app's
 * agent key and to the /mcp resource. A refresh rotates; a rotated refresh token presented
 * again revokes its whole family (a stolen token and its legitimate twin both stop).
 */
import { createHash, randomBytes } from "node:crypto";
import { sql } from "kysely";
import { hashSecret } from "../domain/ids.js";
import type { CoreDeps } from "../services/deps.js";
import { METADATA_CACHE_MS } from "./clients.js";
import { OAuthError } from "./errors.js";

export const CODE_TTL_MS = 60_000;
export const ACCESS_TTL_MS = 60 * 60_000;
export const REFRESH_TTL_MS = 30 * 24 * 60 * 60_000;
export const SCOPE = "mcp";
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const secret = (prefix: string) => `${prefix}_${randomBytes(32).toString("base64url")}`;
const s256 = (verifier: string) =>
  createHash("sha256").update(verifier, "ascii").digest("base64url");

export interface CodeInput {
  clientId: string;
  agentKeyId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
}

export async function createCode(deps: CoreDeps, input: CodeInput): Promise<string> {
  const code = secret("kac");
  const now = deps.clock();
  await deps.db
    .insertInto("oauth_codes")
    .values({
      code_hash: hashSecret(code),
      client_id: input.clientId,
      agent_key_id: input.agentKeyId,
      redirect_uri: input.redirectUri,
      code_challenge: input.codeChallenge,
      resource: input.resource,
      scope: SCOPE,
      created_at: now,
      expires_at: new Date(now.getTime() + CODE_TTL_MS),
    })
    .execute();
  return code;
}

export interface TokenSet {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

type Tx = CoreDeps["db"];

async function issue(
  tx: Tx,
  now: Date,
  t: { familyId: string; clientId: string; agentKeyId: string; resource: string },
): Promise<TokenSet> {
  const access = secret("kat");
  const refresh = secret("kar");
  const row = (hash: string, kind: "access" | "refresh", ttl: number) => ({
    token_hash: hash,
    kind,
    family_id: t.familyId,
    client_id: t.clientId,
    agent_key_id: t.agentKeyId,
    resource: t.resource,
    scope: SCOPE,
    created_at: now,
    expires_at: new Date(now.getTime() + ttl),
  });
  await tx
    .insertInto("oauth_tokens")
    .values([
      row(hashSecret(access), "access", ACCESS_TTL_MS),
      row(hashSecret(refresh), "refresh", REFRESH_TTL_MS),
    ])
    .execute();
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TTL_MS / 1000,
    refresh_token: refresh,
    scope: SCOPE,
  };
}

async function revokeFamily(tx: Tx, familyId: string, now: Date) {
  await tx
    .updateTable("oauth_tokens")
    .set({ revoked_at: now })
    .where("family_id", "=", familyId)
    .where("revoked_at", "is", null)
    .execute();
}

async function keyUsable(tx: Tx, agentKeyId: string): Promise<boolean> {
  const key = await tx
    .selectFrom("agent_keys")
    .select("revoked_at")
    .where("id", "=", agentKeyId)
    .executeTakeFirst();
  return key !== undefined && key.revoked_at === null;
}

export interface ExchangeInput {
  code: string;
  clientId: string;
  redirectUri: string;
  codeVerifier: string;
  resource: string | undefined;
  expectedResource: string;
}

/** authorization_code grant: one use; a second use revokes what the first one issued. */
export async function exchangeCode(deps: CoreDeps, input: ExchangeInput): Promise<TokenSet> {
  if (!VERIFIER.test(input.codeVerifier)) {
    throw new OAuthError(
      "invalid_request",
      "code_verifier: must be 43 to 128 characters of [A-Za-z0-9-._~] (PKCE).",
    );
  }
  if (input.resource !== input.expectedResource) {
    throw new OAuthError("invalid_target", `resource: must be ${input.expectedResource}.`);
  }
  const now = deps.clock();
  const codeHash = hashSecret(input.code);
  const invalid = (why: string) => new OAuthError("invalid_grant", why);
  const outcome = await deps.db.transaction().execute(async (tx) => {
    const used = await tx
      .updateTable("oauth_codes")
      .set({ used_at: now })
      .where("code_hash", "=", codeHash)
      .where("used_at", "is", null)
      .returningAll()
      .executeTakeFirst();
    if (!used) {
      const prior = await tx
        .selectFrom("oauth_codes")
        .select("code_hash")
        .where("code_hash", "=", codeHash)
        .executeTakeFirst();
      // A code used twice was intercepted: revoke what the first exchange issued.
      if (prior) await revokeFamily(tx, codeHash, now);
      return invalid(
        prior ? "The authorization code was already used." : "Unknown authorization code.",
      );
    }
    if (new Date(used.expires_at).getTime() <= now.getTime())
      return invalid("The authorization code expired.");
    if (used.client_id !== input.clientId) return invalid("The code was issued to another client.");
    if (used.redirect_uri !== input.redirectUri)
      return invalid("redirect_uri does not match the authorization request.");
    if (s256(input.codeVerifier) !== used.code_challenge)
      return invalid("code_verifier does not match the code_challenge.");
    if (used.resource !== input.resource)
      return new OAuthError("invalid_target", "resource differs from the authorization request.");
    if (!(await keyUsable(tx, used.agent_key_id)))
      return invalid("This connection was revoked by the owner.");
    const tokens = await issue(tx, now, {
      familyId: codeHash,
      clientId: used.client_id,
      agentKeyId: used.agent_key_id,
      resource: used.resource,
    });
    return tokens;
  });
  if (outcome instanceof OAuthError) throw outcome;
  deps.log.info("oauth code exchanged", { client_id: input.clientId });
  return outcome;
}

export interface RefreshInput {
  refreshToken: string;
  clientId: string;
  resource: string | undefined;
}

/** refresh_token grant: rotates; a rotated token presented again revokes the family. */
export async function refreshTokens(deps: CoreDeps, input: RefreshInput): Promise<TokenSet> {
  const now = deps.clock();
  const hash = hashSecret(input.refreshToken);
  const outcome = await deps.db.transaction().execute(async (tx) => {
    const row = await tx
      .selectFrom("oauth_tokens")
      .selectAll()
      .where("token_hash", "=", hash)
      .where("kind", "=", "refresh")
      .forUpdate()
      .executeTakeFirst();
    if (!row) return new OAuthError("invalid_grant", "Unknown refresh token.");
    if (row.revoked_at) return new OAuthError("invalid_grant", "This refresh token was revoked.");
    if (row.rotated_at) {
      await revokeFamily(tx, row.family_id, now);
      return new OAuthError(
        "invalid_grant",
        "This refresh token was already used; every token of this connection is now revoked. Sign in again.",
      );
    }
    if (new Date(row.expires_at).getTime() <= now.getTime())
      return new OAuthError("invalid_grant", "The refresh token expired; sign in again.");
    if (row.client_id !== input.clientId)
      return new OAuthError("invalid_grant", "The refresh token was issued to another client.");
    if (input.resource !== undefined && input.resource !== row.resource) {
      return new OAuthError("invalid_target", `resource: must be ${row.resource}.`);
    }
    if (!(await keyUsable(tx, row.agent_key_id)))
      return new OAuthError("invalid_grant", "This connection was revoked by the owner.");
    await tx
      .updateTable("oauth_tokens")
      .set({ rotated_at: now })
      .where("token_hash", "=", hash)
      .execute();
    return issue(tx, now, {
      familyId: row.family_id,
      clientId: row.client_id,
      agentKeyId: row.agent_key_id,
      resource: row.resource,
    });
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

/** RFC 7009: revokes the token (and, for a refresh token, its family); unknown tokens are fine. */
export async function revokeToken(deps: CoreDeps, token: string, clientId: string | undefined) {
  const row = await deps.db
    .selectFrom("oauth_tokens")
    .select(["family_id", "client_id", "kind"])
    .where("token_hash", "=", hashSecret(token))
    .executeTakeFirst();
  if (!row || (clientId !== undefined && row.client_id !== clientId)) return;
  const now = deps.clock();
  if (row.kind === "refresh") await revokeFamily(deps.db, row.family_id, now);
  else {
    await deps.db
      .updateTable("oauth_tokens")
      .set({ revoked_at: now })
      .where("token_hash", "=", hashSecret(token))
      .execute();
  }
}

/** Deletes codes and tokens long past their expiry, and unused stale metadata documents (housekeeping). */
export async function purgeExpiredOAuth(deps: CoreDeps): Promise<number> {
  const cutoff = new Date(deps.clock().getTime() - 24 * 3600_000);
  const codes = await sql`DELETE FROM oauth_codes WHERE expires_at < ${cutoff}`.execute(deps.db);
  const tokens = await sql`DELETE FROM oauth_tokens WHERE expires_at < ${cutoff}`.execute(deps.db);
  // Metadata documents past their cache time that no connected app uses (./clients.ts).
  const stale = new Date(deps.clock().getTime() - METADATA_CACHE_MS);
  const clients = await sql`
    DELETE FROM oauth_clients c WHERE c.kind = 'metadata_document' AND c.fetched_at < ${stale}
      AND NOT EXISTS (SELECT 1 FROM agent_keys k WHERE k.client_id = c.id)`.execute(deps.db);
  return [codes, tokens, clients].reduce((n, r) => n + Number(r.numAffectedRows ?? 0), 0);
}
