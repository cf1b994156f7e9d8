-- Connected apps: MCP clients signed in with OAuth. A connected app IS an agent key (kind
-- connected_app) with a limit; its secrets are OAuth tokens instead of a pak_ string. Every
-- code, token and session is stored only as a SHA-256 digest.

-- Clients: registered dynamically (RFC 7591) or known by their metadata document URL (CIMD).
CREATE TABLE oauth_clients (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('registered', 'metadata_document')),
  client_name text NOT NULL,
  redirect_uris text NOT NULL,
  client_uri text,
  created_at timestamptz NOT NULL,
  fetched_at timestamptz,
  registered_from text
);
CREATE INDEX oauth_clients_created_idx ON oauth_clients (created_at);

-- Which OAuth client a connected app's agent key belongs to, and where it returns.
ALTER TABLE agent_keys ADD COLUMN client_id text;
ALTER TABLE agent_keys ADD COLUMN redirect_host text;

-- Authorization codes: single use, short-lived, bound to the client, redirect, PKCE and resource.
CREATE TABLE oauth_codes (
  code_hash text PRIMARY KEY,
  client_id text NOT NULL,
  agent_key_id text NOT NULL REFERENCES agent_keys(id),
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  resource text NOT NULL,
  scope text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX oauth_codes_expires_idx ON oauth_codes (expires_at);

-- Access and refresh tokens. A refresh rotates (the old one is marked rotated); presenting a
-- rotated refresh token again revokes its whole family (theft detection).
CREATE TABLE oauth_tokens (
  token_hash text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  family_id text NOT NULL,
  client_id text NOT NULL,
  agent_key_id text NOT NULL REFERENCES agent_keys(id),
  resource text NOT NULL,
  scope text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  rotated_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX oauth_tokens_family_idx ON oauth_tokens (family_id);
CREATE INDEX oauth_tokens_key_idx ON oauth_tokens (agent_key_id);
CREATE INDEX oauth_tokens_expires_idx ON oauth_tokens (expires_at);

-- Browser sessions of the owner's console and the consent page.
CREATE TABLE web_sessions (
  id_hash text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets(id),
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX web_sessions_expires_idx ON web_sessions (expires_at);
