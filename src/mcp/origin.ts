/**
 * Who may reach /mcp, before anything else is read. The `Host` a request was addressed to must
 * be this server's: PUBLIC_URL's host name or a loopback name (localhost, 127.0.0.1, [::1]),
 * whatever the port — a DNS-rebinding page that points its own name at this machine sends its
 * own name as Host, with or without an `Origin` (refused 403 with a JSON-RPC error, as the
 * SDK's host check answers). Then the browser pages: a request with an `Origin` header comes
 * from a web page, and the MCP transport spec requires the server to check it (a page on
 * another site must not drive the tools with a key it got hold of). Allowed: kinora's own
 * PUBLIC_URL and the origins the operator lists (MCP_ALLOWED_ORIGINS), compared as whole
 * origins — scheme, host and port — not as host names. Requests without `Origin` (every
 * desktop and server-side client) are not browser requests and pass. Allowed origins get
 * CORS: a preflight answer, and the response headers a client must read.
 */

/** Loopback names a local client addresses this server by (the SDK's localhost allow-list). */
const LOOPBACK_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]"];

/** Host names a request to /mcp may be addressed to: PUBLIC_URL's and the loopback names. */
export function allowedHostnames(publicUrl: string): ReadonlySet<string> {
  return new Set([new URL(publicUrl).hostname, ...LOOPBACK_HOSTNAMES]);
}

/**
 * Why the request's Host is refused (undefined: it is ours). `host` is the Host header, or —
 * for a request made in process, which has none — the URL's host; compared by host name, as
 * the SDK's validateHostHeader does (lower case, IPv6 in brackets, no trailing dot).
 */
export function hostRefusal(host: string, allowed: ReadonlySet<string>): string | undefined {
  // The common forms (name or address, then a port) without parsing a URL per request.
  if (allowed.has(host.replace(/:\d{1,5}$/, "").toLowerCase())) return undefined;
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return `Invalid Host header: ${host.slice(0, 100)}`;
  }
  if (allowed.has(hostname.replace(/\.$/, ""))) return undefined;
  return `Invalid Host: ${hostname.slice(0, 100)}. /mcp answers requests addressed to this server's PUBLIC_URL or a loopback name (DNS-rebinding protection); a proxy in front must pass the public Host header.`;
}

/** The set of allowed origins, normalised (lower case, no default port, no trailing slash). */
export function allowedOrigins(publicUrl: string, extra: readonly string[]): ReadonlySet<string> {
  return new Set([publicUrl, ...extra].map((url) => new URL(url).origin));
}

export type OriginVerdict = "no-origin" | "allowed" | "refused";

/** What the `Origin` header (or its absence) means for this request. */
export function checkOrigin(origin: string | null, allowed: ReadonlySet<string>): OriginVerdict {
  if (origin === null) return "no-origin";
  let normal: string;
  try {
    normal = new URL(origin).origin;
  } catch {
    return "refused";
  }
  // An opaque origin ("null": sandboxed frames, file: pages) is never one of ours.
  return normal !== "null" && allowed.has(normal) ? "allowed" : "refused";
}

/** Headers a browser client must be able to read on an MCP answer (the 401 challenge, limits). */
const EXPOSED = [
  "WWW-Authenticate",
  "Mcp-Protocol-Version",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "Retry-After",
  "X-Request-Id",
].join(", ");

/** Request headers MCP clients send: both eras' (2026-07-28 adds Mcp-Method and Mcp-Name). */
const ACCEPTED = [
  "Authorization",
  "Content-Type",
  "Accept",
  "Mcp-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
  "Last-Event-ID",
  "X-Request-Id",
].join(", ");

/** CORS headers of an answer to an allowed origin. */
export function corsHeaders(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Expose-Headers": EXPOSED,
    Vary: "Origin",
  };
}

/** The answer to a CORS preflight (OPTIONS) from an allowed origin: POST with MCP's headers. */
export function preflightHeaders(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": "POST",
    "Access-Control-Allow-Headers": ACCEPTED,
    "Access-Control-Max-Age": "600",
    Vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
  };
}
