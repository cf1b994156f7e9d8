/**
 * OAuth's own error vocabulary (RFC 6749 §5.2, RFC 7591 §3.2.2): `{error, error_description}`
 * bodies from the token, registration and revocation endpoints; at the authorization endpoint
 * the same codes travel in the redirect (or, when the client or redirect cannot be trusted, on
 * an error page — never a redirect).
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "temporarily_unavailable"
  | "slow_down";

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = "OAuthError";
  }

  body() {
    return { error: this.error, error_description: this.description };
  }
}
