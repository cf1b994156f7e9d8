/**
 * Connected apps as a Feature: OAuth discovery, registration, token and revocation endpoints,
 * and the consent page, over the same agent keys and spending path as everything else; its
 * background task purges OAuth codes and tokens a day past expiry, and metadata-document clients
 * no connected app uses once their cache time is over.
 */

import type { FeatureFactory, Platform, RouteContext } from "../feature.js";
import { registerOAuthEndpoints } from "../http/routes/oauth/endpoints.js";
import { redirectWith } from "../oauth/authorize.js";
import {
  type ClientDeps,
  isMetadataDocumentId,
  type MetadataFailures,
  NEW_CLIENT_BUCKET,
} from "../oauth/clients.js";
import { checkConsentRequest } from "../oauth/consent-check.js";
import { purgeExpiredOAuth } from "../oauth/tokens.js";
import { connectedAppOperations } from "../operations/connected-apps.js";
import { registerConsentRoutes } from "../web/consent-routes.js";
import { startPurges } from "./purges.js";
import { pagesSurface, webDeps } from "./web-pages.js";

interface ConnectedAppsOptions {
  /** Test seam: let metadata documents be fetched from a local server. Never in production. */
  metadataFetch?: ClientDeps["metadataFetch"];
  /** How often expired codes and tokens are purged (default: every five minutes). */
  purgeEveryMs?: number;
}

/** What the consent page is given: the operations, and OAuth's reading of a request. */
function consentDeps(p: Platform, clients: ClientDeps, ctx: RouteContext) {
  const at = { resource: `${p.publicUrl}/mcp`, issuer: p.publicUrl };
  return {
    surface: pagesSurface(p, ctx),
    web: webDeps(p),
    check: (q: Record<string, string | undefined>) => checkConsentRequest(clients, q, at),
    redirect: (uri: string, params: Record<string, string | undefined>) =>
      redirectWith(uri, params, at.issuer),
    isMetadataDocumentId,
    // Fetching a metadata document registers a client: the bucket registration counts.
    takeNewClient: async (address: string) => {
      if (!p.config.rateLimits.enabled) return { ok: true } as const;
      const d = await p.rateLimiter.take(
        `${NEW_CLIENT_BUCKET}:${address}`,
        p.config.rateLimits.oauthRegister,
      );
      return d.ok ? ({ ok: true } as const) : ({ ok: false, retryAfterSec: d.resetSec } as const);
    },
  };
}

/**
 * Connected apps: OAuth for MCP clients (metadata, registration, consent, tokens) and its purge.
 */
export function connectedAppsFeature(opts: ConnectedAppsOptions = {}): FeatureFactory {
  return (p) => {
    const deps = {
      db: p.db,
      clock: p.clock,
      ids: p.ids,
      log: p.log,
      publicUrl: p.publicUrl,
      signer: p.signer,
      rateLimiter: p.rateLimiter,
      trustProxy: p.config.trustProxy,
      registerLimit: p.config.rateLimits.oauthRegister,
      limitsEnabled: p.config.rateLimits.enabled,
      signInLimit: p.config.rateLimits.signIn,
      createLimit: p.config.rateLimits.create,
      maxActiveKeys: p.config.maxAgentKeys,
      metadataFetch: opts.metadataFetch,
      // cast: an empty map is of any entry type; MetadataFailures names the one the service keeps
      metadataFailures: new Map() as MetadataFailures,
    };
    return {
      name: "connected-apps",
      operations: connectedAppOperations(deps),
      routes(app, ctx) {
        registerOAuthEndpoints(app, deps);
        registerConsentRoutes(app, consentDeps(p, deps, ctx));
      },
      start: async () =>
        startPurges(
          p,
          [
            {
              what: "expired OAuth codes, tokens and unused metadata documents",
              run: (q) => purgeExpiredOAuth(q),
            },
          ],
          "connected-apps housekeeping",
          opts.purgeEveryMs,
        ),
    };
  };
}
