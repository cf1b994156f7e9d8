/**
 * The authorization request (RFC 6749 §4.1.1 with PKCE, RFC 8707 resource, RFC 9207 iss):
 * checked in the order that decides where an error may go. An unknown client or a redirect URI
 * it did not register gets an error page with nowhere to go. Every client is self-registered
 * (dynamic registration or a metadata document: none is operator-trusted), so an error found
 * after that is also a page, never an automatic redirect (RFC 9700 §4.11.2: anyone could
 * register https://evil.example and bounce browsers through kinora to it); the page offers a
 * link back to the client's redirect URI carrying the error, naming its host.
 */
import { type ClientDeps, findClient, type OAuthClient } from "./clients.js";
import { OAuthError, type OAuthErrorCode } from "./errors.js";
import { matchRedirectUri, redirectHost } from "./redirect-uris.js";
import { SCOPE } from "./tokens.js";

export interface AuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  codeChallenge: string;
  state: string | undefined;
  resource: string;
}

/** Cannot be sent to the redirect URI: shown on a page. */
export class UntrustedRequestError extends Error {
  override name = "UntrustedRequestError";
}

/** Shown on a page whose "return to <host>" link carries ?error=…&state=…&iss=… back. */
export class RedirectableError extends OAuthError {
  constructor(
    error: OAuthErrorCode,
    description: string,
    readonly redirectUri: string,
    readonly state: string | undefined,
  ) {
    super(error, description);
  }
}

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export async function parseAuthorizeRequest(
  deps: ClientDeps,
  q: Record<string, string | undefined>,
  expectedResource: string,
): Promise<AuthorizeRequest> {
  const clientId = q.client_id;
  if (!clientId)
    throw new UntrustedRequestError("The request names no client (client_id is missing).");
  let client: OAuthClient | undefined;
  try {
    client = await findClient(deps, clientId);
  } catch (err) {
    throw new UntrustedRequestError(
      err instanceof OAuthError ? err.description : "The client could not be checked.",
    );
  }
  if (!client)
    throw new UntrustedRequestError("This app is not registered with kinora (unknown client_id).");
  const requested =
    q.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  const redirectUri = requested
    ? matchRedirectUri(client.redirectUris, requested) && requested
    : undefined;
  if (!redirectUri) {
    throw new UntrustedRequestError(
      "The redirect_uri is not one this app registered, so kinora will not send your browser there.",
    );
  }
  const state = q.state;
  const fail = (error: OAuthErrorCode, description: string) =>
    new RedirectableError(error, description, redirectUri, state);
  if (q.response_type !== "code")
    throw fail("unsupported_response_type", "response_type must be code.");
  if (!q.code_challenge)
    throw fail("invalid_request", "code_challenge is required (PKCE with S256).");
  if (q.code_challenge_method !== "S256")
    throw fail("invalid_request", "code_challenge_method must be S256.");
  if (!CHALLENGE.test(q.code_challenge))
    throw fail("invalid_request", "code_challenge must be a base64url SHA-256 (43 characters).");
  if (!q.resource) throw fail("invalid_target", `resource is required: ${expectedResource}.`);
  if (q.resource !== expectedResource)
    throw fail("invalid_target", `resource must be ${expectedResource}.`);
  const scopes = (q.scope ?? "").split(" ").filter(Boolean);
  if (scopes.some((s) => s !== SCOPE)) throw fail("invalid_scope", `The only scope is ${SCOPE}.`);
  return { client, redirectUri, codeChallenge: q.code_challenge, state, resource: q.resource };
}

/** Where the browser goes after a decision: the redirect URI with the result and our issuer. */
export function redirectWith(
  redirectUri: string,
  params: Record<string, string | undefined>,
  issuer: string,
): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries({ ...params, iss: issuer })) {
    if (v !== undefined) url.searchParams.set(k, v);
  }
  return url.toString();
}

export { redirectHost };
