/**
 * Which redirect URIs a client may register, and how a request's redirect_uri is matched.
 * Allowed: https; http only on loopback (127.0.0.1, [::1], localhost — RFC 8252 §7.3); a
 * private-use scheme for native apps (reverse domain, e.g. com.example.app:/cb — §7.1). Never
 * javascript:, data:, file:, or a URI with a fragment or credentials. Matching is exact, except
 * that a loopback redirect may use any port at request time (RFC 8252 §7.3).
 */

const FORBIDDEN_SCHEMES = new Set([
  "javascript:",
  "data:",
  "file:",
  "vbscript:",
  "about:",
  "blob:",
  "ftp:",
  "ws:",
  "wss:",
]);
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
/** A private-use scheme: a reverse domain name with at least one dot (RFC 8252 §7.1). */
const PRIVATE_SCHEME = /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/i;
export const MAX_REDIRECT_URI_CHARS = 2000;

export function isLoopback(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/** Why a redirect URI cannot be registered, or null when it can. */
export function redirectUriProblem(raw: string): string | null {
  if (raw.length > MAX_REDIRECT_URI_CHARS)
    return `is longer than ${MAX_REDIRECT_URI_CHARS} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not an absolute URI";
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `may not use the ${url.protocol} scheme`;
  if (url.hash || raw.includes("#")) return "must not contain a fragment (#…)";
  if (url.username || url.password) return "must not contain a user name or password";
  if (url.protocol === "https:") return url.hostname ? null : "needs a host";
  if (url.protocol === "http:") {
    return isLoopback(url)
      ? null
      : "may use http only on loopback (127.0.0.1, [::1] or localhost); use https";
  }
  return PRIVATE_SCHEME.test(url.protocol)
    ? null
    : "must be https, http on loopback, or a private-use scheme like com.example.app:/callback";
}

/** The registered URI a request's redirect_uri stands for, or undefined (no match). */
export function matchRedirectUri(
  registered: readonly string[],
  requested: string,
): string | undefined {
  if (registered.includes(requested)) return requested;
  let want: URL;
  try {
    want = new URL(requested);
  } catch {
    return undefined;
  }
  if (!isLoopback(want)) return undefined;
  return registered.find((r) => {
    try {
      const have = new URL(r);
      if (!isLoopback(have)) return false;
      have.port = want.port;
      return have.href === want.href;
    } catch {
      return false;
    }
  });
}

/** What the consent page shows as "where it returns": the host (or the scheme of a native app). */
export function redirectHost(uri: string): string {
  const url = new URL(uri);
  if (url.protocol === "http:" || url.protocol === "https:") return url.host;
  return `${url.protocol}//${url.host}`.replace(/\/\/$/, "");
}
