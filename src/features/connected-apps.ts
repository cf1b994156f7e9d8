/**
 * Connected apps as a Feature: OAuth discovery, registration, token and revocation endpoints,
 * and the consent page, over the same agent keys and spending path as everything else; its
 * background task purges OAuth codes and tokens a day past expiry, and metadata-document clients
 * no connected app uses once their cache time is over.
 */

import type { FeatureFactory } from "../feature.js";
import { registerOAuthEndpoints } from "../http/routes/oauth/endpoints.js";
import type { ClientDeps, MetadataFailures } from "../oauth/clients.js";
import { purgeExpiredOAuth } from "../oauth/tokens.js";
import { registerConsentRoutes } from "../web/consent-routes.js";
import { startPurges } from "./purges.js";

interface ConnectedAppsOptions {
  /** Test seam: let metadata documents be fetched from a local server. Never in production. */
  metadataFetch?: ClientDeps["metadataFetch"];
  /** How often expired codes and tokens are purged (default: every five minutes). */
  purgeEveryMs?: number;
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
      metadataFailures: new Map() as MetadataFailures,
    };
    return {
      name: "connected-apps",
      routes(app) {
        registerOAuthEndpoints(app, deps);
        registerConsentRoutes(app, deps);
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
