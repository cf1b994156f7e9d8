/** Reading an OAuth request's parameters (form-encoded, as RFC 6749 has it, or JSON). */
import type { Context } from "hono";
import { OAuthError } from "../../../oauth/errors.js";
import type { AppEnv } from "../../env.js";

const MAX_VALUE_CHARS = 4096;

/** Single-valued string parameters; a NUL, an array or an overlong value is invalid_request. */
export async function oauthParams(c: Context<AppEnv>): Promise<Record<string, string>> {
  const type = c.req.header("content-type") ?? "";
  let raw: Record<string, unknown>;
  if (/^application\/json\b/i.test(type)) {
    try {
      // cast: read leniently: each OAuth parameter is checked with typeof where it is used
      raw = (await c.req.json()) as Record<string, unknown>;
    } catch {
      throw new OAuthError("invalid_request", "The body is not valid JSON.");
    }
  } else if (/^application\/x-www-form-urlencoded\b/i.test(type) || type === "") {
    raw = Object.fromEntries(new URLSearchParams(await c.req.text()));
  } else {
    throw new OAuthError(
      "invalid_request",
      "Send the parameters as application/x-www-form-urlencoded.",
    );
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new OAuthError("invalid_request", "The body must be a set of parameters.");
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== "string" || v.includes("\0") || v.length > MAX_VALUE_CHARS) {
      throw new OAuthError("invalid_request", `${k}: must be one plain string value.`);
    }
    out[k] = v;
  }
  return out;
}

/** An OAuth error response (RFC 6749 §5.2): JSON, no caching. */
export function oauthErrorResponse(c: Context<AppEnv>, err: OAuthError) {
  c.header("Cache-Control", "no-store");
  // cast: an OAuthError's status is 400 or 401 (RFC 6749 §5.2), set by its constructor
  return c.json(err.body(), err.status as 400 | 401);
}

/** Public-client endpoints are called from browsers too (web-based MCP clients). */
export function allowAnyOrigin(c: Context<AppEnv>) {
  c.header("Access-Control-Allow-Origin", "*");
  c.header("Access-Control-Allow-Headers", "content-type, authorization, mcp-protocol-version");
  c.header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
}
