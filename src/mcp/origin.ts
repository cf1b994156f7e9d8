/**
 * Which browser pages may call /mcp. A request with an `Origin` header comes from a web page;
 * the MCP transport spec requires the server to check it (a page on another site, or a
 * DNS-rebinding attack on a local server, must not drive the tools with a key it got hold of).
 * Allowed: kinora's own PUBLIC_URL and the origins the operator lists (MCP_ALLOWED_ORIGINS),
 * compared as whole origins — scheme, host and port — not as host names. Requests without
 * `Origin` (every desktop and server-side client) are not browser requests and pass.
 * Allowed origins get CORS: a preflight answer, and the response headers a client must read.
 */

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
