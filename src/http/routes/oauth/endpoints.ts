/**
 * The machine-facing OAuth endpoints of connected apps: discovery (RFC 9728, RFC 8414),
 * dynamic client registration (RFC 7591, rate-limited per address), the token endpoint
 * (authorization_code with PKCE, refresh_token with rotation) and revocation (RFC 7009).
 * The browser-facing authorization endpoint is a page: src/web/consent-routes.tsx.
 */
import type { Context } from "hono";
import { type ClientDeps, NEW_CLIENT_BUCKET, registerClient } from "../../../oauth/clients.js";
import { OAuthError } from "../../../oauth/errors.js";
import { authorizationServerMetadata, protectedResourceMetadata } from "../../../oauth/metadata.js";
import { exchangeCode, refreshTokens, revokeToken } from "../../../oauth/tokens.js";
import type { Limit, RateLimiter } from "../../../services/rate-limit.js";
import type { AppEnv } from "../../env.js";
import { smallBody } from "../../middleware/body-limit.js";
import { clientAddress, rateLimit } from "../../middleware/rate-limit.js";
import { refuseNulOrDeepJsonBody } from "../../middleware/refuse-nul.js";
import type { Router } from "../../router.js";
import { allowAnyOrigin, oauthErrorResponse, oauthParams } from "./params.js";

interface OAuthRouteDeps extends ClientDeps {
  publicUrl: string;
  rateLimiter: RateLimiter;
  trustProxy: boolean;
  registerLimit: Limit;
  limitsEnabled: boolean;
}

async function handled(c: Context<AppEnv>, fn: () => Promise<Response>) {
  allowAnyOrigin(c);
  try {
    return await fn();
  } catch (err) {
    if (err instanceof OAuthError) return oauthErrorResponse(c, err);
    throw err;
  }
}

/** Discovery (RFC 9728, RFC 8414) and the CORS preflights of the posting endpoints. */
function registerDiscovery(app: Router, publicUrl: string) {
  for (const path of [
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/mcp",
  ]) {
    app.get(path, (c) => {
      allowAnyOrigin(c);
      return c.json(protectedResourceMetadata(publicUrl));
    });
  }
  app.get("/.well-known/oauth-authorization-server", (c) => {
    allowAnyOrigin(c);
    return c.json(authorizationServerMetadata(publicUrl));
  });
  for (const path of ["/oauth/register", "/oauth/token", "/oauth/revoke"]) {
    app.options(path, (c) => {
      allowAnyOrigin(c);
      return c.body(null, 204);
    });
  }
}

/** The client metadata a registration posts: a JSON object, or invalid_client_metadata. */
async function clientMetadata(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  let metadata: unknown;
  try {
    metadata = await c.req.json();
  } catch {
    metadata = undefined;
  }
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) {
    throw new OAuthError("invalid_client_metadata", "Send the client metadata as a JSON object.");
  }
  // A non-null, non-array object: its fields are checked one by one by registerClient.
  // cast: checked to be a plain object just above; registerClient checks its fields one by one
  return metadata as Record<string, unknown>;
}

/** Dynamic client registration (RFC 7591), rate-limited per address. */
function registerRegistration(app: Router, deps: OAuthRouteDeps) {
  const byAddress = (c: Context<AppEnv>) => clientAddress(c, deps.trustProxy);
  const limit = rateLimit(
    deps.rateLimiter,
    NEW_CLIENT_BUCKET,
    deps.registerLimit,
    byAddress,
    deps.limitsEnabled,
  );
  app.post("/oauth/register", limit, (c) =>
    handled(c, async () => {
      const registered = await registerClient(deps, await clientMetadata(c), byAddress(c));
      c.header("Cache-Control", "no-store");
      return c.json(registered, 201);
    }),
  );
}

/** The token endpoint's answer to one grant (authorization_code with PKCE, refresh_token). */
async function grant(deps: OAuthRouteDeps, p: Awaited<ReturnType<typeof oauthParams>>) {
  if (!p.client_id)
    throw new OAuthError("invalid_client", "client_id is required (public clients).", 401);
  if (p.grant_type === "authorization_code") {
    if (!p.code || !p.redirect_uri || !p.code_verifier) {
      throw new OAuthError("invalid_request", "code, redirect_uri and code_verifier are required.");
    }
    return exchangeCode(deps, {
      code: p.code,
      clientId: p.client_id,
      redirectUri: p.redirect_uri,
      codeVerifier: p.code_verifier,
      resource: p.resource,
      expectedResource: `${deps.publicUrl}/mcp`,
    });
  }
  if (p.grant_type === "refresh_token") {
    if (!p.refresh_token) throw new OAuthError("invalid_request", "refresh_token is required.");
    return refreshTokens(deps, {
      refreshToken: p.refresh_token,
      clientId: p.client_id,
      resource: p.resource,
    });
  }
  throw new OAuthError(
    "unsupported_grant_type",
    "grant_type must be authorization_code or refresh_token.",
  );
}

/** The OAuth endpoints MCP clients use: metadata, registration, token, revocation. */
export function registerOAuthEndpoints(app: Router, deps: OAuthRouteDeps) {
  // Token and revocation posts are small forms; registration is a small JSON document that
  // must not carry NULs into the database.
  app.use("/oauth/*", smallBody);
  app.use("/oauth/register", refuseNulOrDeepJsonBody);
  registerDiscovery(app, deps.publicUrl);
  registerRegistration(app, deps);

  app.post("/oauth/token", (c) =>
    handled(c, async () => {
      const p = await oauthParams(c);
      c.header("Cache-Control", "no-store");
      c.header("Pragma", "no-cache");
      return c.json(await grant(deps, p));
    }),
  );

  app.post("/oauth/revoke", (c) =>
    handled(c, async () => {
      const p = await oauthParams(c);
      if (!p.token) throw new OAuthError("invalid_request", "token is required.");
      await revokeToken(deps, p.token, p.client_id);
      return c.body(null, 200);
    }),
  );
}
