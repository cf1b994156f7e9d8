/**
 * Who calls /mcp: an agent key in `Authorization: Bearer pak_…`, or in `?key=pak_…` for clients
 * that accept only a URL (spec rule 6), or a connected app's access token (`kat_…`, header
 * only). An assistant always spends under a limit, so a wallet key is refused — in the URL
 * with 400 (it must never travel in one), in the header with 403 saying how to make an agent
 * key; an access token in the URL is a 400 too. A missing, unknown or revoked key is a 401
 * before any JSON-RPC, with the WWW-Authenticate challenge MCP clients look for.
 */
import { ApiError, invalidRequest } from "../domain/errors.js";
import { authenticate, authenticateAccessToken, type Principal } from "../services/auth.js";
import type { CoreDeps } from "../services/deps.js";

export interface McpCaller {
  principal: Principal & { kind: "agent" };
  credential: string;
}

/**
 * `error_description` as RFC 6750 lets it be quoted (printable ASCII without `"` or `\`): the
 * refusal's code and detail, so a client that reports only the challenge — as the SDK clients
 * do at connect, in either era — still says why (`key_revoked: …`).
 */
function describe(code: string, detail: string): string {
  return `${code}: ${detail}`
    .replace(/[—–]/g, "-")
    .replace(/…/g, "...")
    .replace(/[^\x20-\x7e]|["\\]/g, "")
    .slice(0, 300);
}

/**
 * The 401 challenge: where a client that signs in finds the authorization server (RFC 9728),
 * and what was wrong with what it sent.
 */
function challenge(
  publicUrl: string,
  why: { code: string; detail: string },
  error?: string,
): Record<string, string> {
  const parts = [
    `Bearer resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp"`,
    `scope="mcp"`,
  ];
  if (error) parts.push(`error="${error}"`);
  parts.push(`error_description="${describe(why.code, why.detail)}"`);
  return { "WWW-Authenticate": parts.join(", ") };
}

function secretFrom(req: Request, publicUrl: string): string | undefined {
  // Most clients send no query string: no URL to parse for them.
  const inUrl = req.url.includes("?") ? new URL(req.url).searchParams.get("key") : null;
  const header = req.headers.get("authorization");
  if (inUrl !== null) {
    if (inUrl.startsWith("pmk_")) {
      throw new ApiError(
        "key_in_url",
        "A wallet key (pmk_) must never be put in a URL. Make an agent key with a spending limit (POST /wallet/keys) and use that in ?key= or the Authorization header.",
      );
    }
    if (inUrl.startsWith("kat_")) {
      // OAuth 2.1 (and MCP authorization) forbid access tokens in the query string.
      throw new ApiError(
        "key_in_url",
        "An access token (kat_) is accepted only in the header: send Authorization: Bearer kat_… and take ?key= off the URL. Only agent keys (pak_) may travel in ?key=.",
      );
    }
    if (header) {
      throw invalidRequest("Send the key once: in ?key= or in the Authorization header.");
    }
    return inUrl;
  }
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) {
    const detail = "The Authorization header must be `Bearer <agent key or access token>`.";
    const headers = challenge(publicUrl, { code: "unauthorized", detail }, "invalid_request");
    throw new ApiError("unauthorized", detail, {}, { headers });
  }
  return match[1];
}

export async function mcpCaller(
  deps: CoreDeps,
  req: Request,
  publicUrl: string,
): Promise<McpCaller> {
  const secret = secretFrom(req, publicUrl);
  if (!secret) {
    const detail =
      "/mcp needs an agent key (Authorization: Bearer pak_…, or ?key=pak_… for clients that take only a URL), or sign in: an OAuth-capable client finds how in WWW-Authenticate.";
    const headers = challenge(publicUrl, { code: "unauthorized", detail });
    throw new ApiError("unauthorized", detail, {}, { headers });
  }
  let principal: Principal;
  try {
    // A connected app's OAuth access token is good for this resource only.
    principal = secret.startsWith("kat_")
      ? await authenticateAccessToken(deps, secret, `${publicUrl}/mcp`)
      : await authenticate(deps, secret);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      // The same code (a revoked key stays key_revoked), with the challenge MCP clients read.
      const headers = challenge(publicUrl, err, "invalid_token");
      throw new ApiError(err.code, err.detail, err.extra, { headers });
    }
    throw err;
  }
  if (principal.kind !== "agent") {
    throw new ApiError(
      "agent_key_required",
      "Assistants spend under a limit: this is the wallet key. Make an agent key with a spending limit (POST /wallet/keys with limit_cents, or in the console) and connect the assistant with that.",
    );
  }
  return { principal, credential: secret };
}
