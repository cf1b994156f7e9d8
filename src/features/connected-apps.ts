/**
 * Connected apps as a Feature: OAuth discovery, registration, token and revocation endpoints,
 * and the consent page, over the same agent keys and spending path as everything else.
 */
import { registerOAuthEndpoints } from "../http/routes/oauth/endpoints.js";
import type { ClientDeps } from "../oauth/clients.js";
import type { FeatureFactory } from "../platform.js";
import { registerConsentRoutes } from "../web/consent-routes.js";

export interface ConnectedAppsOptions {
  /** Test seam: let metadata documents be fetched from a local server. Never in production. */
  metadataFetch?: ClientDeps["metadataFetch"];
}

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
    };
    return {
      name: "connected-apps",
      routes(app) {
        registerOAuthEndpoints(app, deps);
        registerConsentRoutes(app, deps);
      },
    };
  };
}
