/**
 * OAuth clients of connected apps. Public clients only (MCP clients run on people's machines;
 * they have no secret to keep): registered dynamically (RFC 7591), or — what MCP clients now
 * prefer — named by an https URL whose JSON is their Client ID Metadata Document, fetched here
 * through the SSRF-safe fetcher with size and time caps, and cached.
 */
import { randomBytes } from "node:crypto";
import { bidiInField } from "../api/validation.js";
import { findBidiControl } from "../domain/bidi.js";
import { inertName } from "../domain/text.js";
import { fetchPublicJsonBytes, type SafeFetchOptions } from "../net/safe-fetch.js";
import type { CoreDeps } from "../services/deps.js";
import { OAuthError } from "./errors.js";
import { redirectUriProblem } from "./redirect-uris.js";

export const CLIENT_NAME_MAX = 100;
export const REDIRECT_URIS_MAX = 10;
/** A metadata document is small; anything bigger is not one. */
export const METADATA_MAX_BYTES = 16 * 1024;
export const METADATA_TIMEOUT_MS = 5000;
/** How long a fetched metadata document is trusted before it is fetched again. */
export const METADATA_CACHE_MS = 60 * 60_000;
/** How long a metadata document that could not be used is not fetched again. */
export const METADATA_FAILURE_CACHE_MS = 5 * 60_000;
const METADATA_FAILURES_MAX = 10_000;

/**
 * What the error page says when a metadata document cannot be used: a class, never the fetch's
 * own error (it would tell a closed port from a TLS error from an HTTP status, or echo the
 * bytes served, making kinora a probe of whatever the URL names).
 */
const METADATA_UNREACHABLE =
  "kinora could not fetch the app's metadata (it could not be retrieved).";
const METADATA_INVALID =
  "kinora could not fetch the app's metadata (what the address serves is not a valid client metadata document).";

/**
 * The per-address rate bucket of new clients: a registration, and an authorization request
 * naming a metadata-document URL (each may fetch a URL and store a client), count against it.
 */
export const NEW_CLIENT_BUCKET = "oauth-register";

/** Metadata-document URLs that recently failed, with what to say until when (per process). */
export type MetadataFailures = Map<string, { description: string; untilMs: number }>;

export interface OAuthClient {
  id: string;
  kind: "registered" | "metadata_document";
  clientName: string;
  redirectUris: string[];
  clientUri: string | null;
}

export interface ClientDeps extends CoreDeps {
  /** Test seams of the metadata-document fetch (a local server). Never set in production. */
  metadataFetch?: Pick<SafeFetchOptions, "lookup" | "allowPrivateForTests" | "caForTests">;
  /** Recent metadata-document failures, answered without fetching again. */
  metadataFailures?: MetadataFailures;
}

interface ClientMetadata {
  client_name?: unknown;
  client_uri?: unknown;
  redirect_uris?: unknown;
  grant_types?: unknown;
  response_types?: unknown;
  token_endpoint_auth_method?: unknown;
}

/**
 * The checked name and redirect URIs of a registration or metadata document. A bidirectional
 * control in what is shown (the name, the URIs) is refused, as in every field a caller sends
 * (domain/bidi.ts); other invisible characters are dropped from the name (inertName).
 */
function checkMetadata(m: ClientMetadata, err: "invalid_client_metadata" | "invalid_client") {
  const { client_name, client_uri, redirect_uris } = m;
  const bidi = findBidiControl({ client_name, client_uri, redirect_uris });
  if (bidi) {
    const code = bidi.at.startsWith("redirect_uris") ? "invalid_redirect_uri" : err;
    throw new OAuthError(code, bidiInField(bidi.at, bidi.char).detail);
  }
  if (!Array.isArray(m.redirect_uris) || m.redirect_uris.length === 0) {
    throw new OAuthError("invalid_redirect_uri", "redirect_uris: give at least one redirect URI.");
  }
  if (m.redirect_uris.length > REDIRECT_URIS_MAX) {
    throw new OAuthError("invalid_redirect_uri", `redirect_uris: at most ${REDIRECT_URIS_MAX}.`);
  }
  const uris = m.redirect_uris.map((u, i) => {
    if (typeof u !== "string") {
      throw new OAuthError("invalid_redirect_uri", `redirect_uris.${i} is not a string.`);
    }
    const problem = redirectUriProblem(u);
    if (problem) throw new OAuthError("invalid_redirect_uri", `redirect_uris.${i} ${problem}.`);
    return u;
  });
  const method = m.token_endpoint_auth_method ?? "none";
  if (method !== "none") {
    throw new OAuthError(
      err,
      'token_endpoint_auth_method: only public clients ("none") are supported.',
    );
  }
  // cast: Array.isArray would narrow to any[]; unknown[] keeps the element checks honest
  const grants = (m.grant_types ?? ["authorization_code"]) as unknown[];
  if (
    !Array.isArray(grants) ||
    grants.some((g) => g !== "authorization_code" && g !== "refresh_token")
  ) {
    throw new OAuthError(
      err,
      "grant_types: only authorization_code and refresh_token are supported.",
    );
  }
  // cast: Array.isArray would narrow to any[]; unknown[] keeps the element checks honest
  const responses = (m.response_types ?? ["code"]) as unknown[];
  if (!Array.isArray(responses) || responses.some((r) => r !== "code")) {
    throw new OAuthError(err, "response_types: only code is supported.");
  }
  const name = inertName(typeof m.client_name === "string" ? m.client_name : "", CLIENT_NAME_MAX);
  const clientUri =
    typeof m.client_uri === "string" && /^https:\/\//.test(m.client_uri) ? m.client_uri : null;
  return { name: name || "An unnamed app", uris, clientUri };
}

/** RFC 7591 registration of a public client; answers the registration response. */
export async function registerClient(deps: CoreDeps, metadata: ClientMetadata, from: string) {
  const { name, uris, clientUri } = checkMetadata(metadata, "invalid_client_metadata");
  const id = `app_${randomBytes(16).toString("base64url")}`;
  const now = deps.clock();
  await deps.db
    .insertInto("oauth_clients")
    .values({
      id,
      kind: "registered",
      client_name: name,
      redirect_uris: JSON.stringify(uris),
      client_uri: clientUri,
      created_at: now,
      registered_from: from,
    })
    .execute();
  deps.log.info("oauth client registered", { client_id: id });
  return {
    client_id: id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: name,
    redirect_uris: uris,
    ...(clientUri ? { client_uri: clientUri } : {}),
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

const fromRow = (row: {
  id: string;
  kind: "registered" | "metadata_document";
  client_name: string;
  redirect_uris: string;
  client_uri: string | null;
}): OAuthClient => ({
  id: row.id,
  kind: row.kind,
  // Stored names are made inert again: rows written before the rule hold them as sent.
  clientName: inertName(row.client_name, CLIENT_NAME_MAX),
  // cast: the column is written by this module from a checked string array
  redirectUris: JSON.parse(row.redirect_uris) as string[],
  clientUri: row.client_uri,
});

export const isMetadataDocumentId = (clientId: string) => /^https:\/\/[^\s]+$/.test(clientId);

/** The client named by client_id (a registration or a metadata document URL), or undefined. */
export async function findClient(
  deps: ClientDeps,
  clientId: string,
): Promise<OAuthClient | undefined> {
  if (clientId.length > 2000) return undefined;
  const row = await deps.db
    .selectFrom("oauth_clients")
    .selectAll()
    .where("id", "=", clientId)
    .executeTakeFirst();
  if (!isMetadataDocumentId(clientId))
    return row && row.kind === "registered" ? fromRow(row) : undefined;
  const fresh =
    row?.fetched_at &&
    deps.clock().getTime() - new Date(row.fetched_at).getTime() < METADATA_CACHE_MS;
  if (row && fresh) return fromRow(row);
  const now = deps.clock().getTime();
  const failed = deps.metadataFailures?.get(clientId);
  if (failed && failed.untilMs > now) throw new OAuthError("invalid_client", failed.description);
  try {
    return await fetchMetadataDocument(deps, clientId);
  } catch (err) {
    if (err instanceof OAuthError && deps.metadataFailures) {
      const failures = deps.metadataFailures;
      failures.delete(clientId);
      if (failures.size >= METADATA_FAILURES_MAX) {
        // cast: the map is not empty here (its size is over the cap), so the first key exists
        failures.delete(failures.keys().next().value as string);
      }
      failures.set(clientId, {
        description: err.description,
        untilMs: now + METADATA_FAILURE_CACHE_MS,
      });
    }
    throw err;
  }
}

/**
 * Fetches and stores a metadata document. A stored document doubles as the cache; one that
 * no connected app uses is purged once stale (purgeExpiredOAuth), so documents fetched for
 * requests that went nowhere do not pile up.
 */
async function fetchMetadataDocument(deps: ClientDeps, url: string): Promise<OAuthClient> {
  let bytes: Buffer;
  try {
    bytes = await fetchPublicJsonBytes(url, {
      maxBytes: METADATA_MAX_BYTES,
      timeoutMs: METADATA_TIMEOUT_MS,
      // The document must be at the client_id URL itself.
      maxRedirects: 0,
      field: "client_id",
      ...deps.metadataFetch,
    });
  } catch {
    throw new OAuthError("invalid_client", METADATA_UNREACHABLE);
  }
  let doc: ClientMetadata & { client_id?: unknown };
  let checked: ReturnType<typeof checkMetadata>;
  try {
    doc = JSON.parse(bytes.toString("utf8"));
    if (!doc || typeof doc !== "object" || doc.client_id !== url) throw new Error("not its own");
    checked = checkMetadata(doc, "invalid_client");
  } catch (err) {
    // A document refused for a field says which (the app's developer reads it to fix it).
    const why = err instanceof OAuthError ? ` ${err.description}` : "";
    throw new OAuthError("invalid_client", `${METADATA_INVALID}${why}`);
  }
  const { name, uris, clientUri } = checked;
  const now = deps.clock();
  const values = {
    kind: "metadata_document" as const,
    client_name: name,
    redirect_uris: JSON.stringify(uris),
    client_uri: clientUri,
    fetched_at: now,
  };
  await deps.db
    .insertInto("oauth_clients")
    .values({ id: url, created_at: now, ...values })
    .onConflict((oc) => oc.column("id").doUpdateSet(values))
    .execute();
  return { id: url, kind: "metadata_document", clientName: name, redirectUris: uris, clientUri };
}
