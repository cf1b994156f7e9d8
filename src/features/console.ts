/**
 * The owner's console (/console) as a Feature, over the same services (the same bundles) as
 * the REST API; its background task purges expired console sessions.
 */
import type { FeatureFactory } from "../feature.js";
import { type ClipsFeatureOptions, clipDeps } from "../kinds/clips/kind.js";
import { registerConsoleRoutes } from "../web/console-routes.js";
import { purgeSessions } from "../web/session.js";
import { createPaymentsDeps, type PaymentsFeatureOptions } from "./payments.js";
import { startPurges } from "./purges.js";
import { webhookDeps } from "./webhooks.js";

interface ConsoleFeatureOptions {
  /** Used only when no earlier feature built the clip services (features/shared-services.ts). */
  clips?: ClipsFeatureOptions;
  /** Used only when no earlier feature built the payment services. */
  payments?: PaymentsFeatureOptions;
  /** How often expired sessions are purged (default: every five minutes). */
  purgeEveryMs?: number;
}

/** The wallet owner's console pages and their session purge. */
export function consoleFeature(opts: ConsoleFeatureOptions = {}): FeatureFactory {
  return async (platform) => {
    const deps = {
      platform,
      webhooks: webhookDeps(platform),
      clips: clipDeps(platform, opts.clips),
      payments: (await createPaymentsDeps(platform, opts.payments)).deps,
      signInLimit: platform.config.rateLimits.signIn,
    };
    return {
      name: "console",
      routes: (app) => registerConsoleRoutes(app, deps),
      start: async () =>
        startPurges(
          platform,
          [{ what: "expired web sessions", run: (p) => purgeSessions(p) }],
          "console housekeeping",
          opts.purgeEveryMs,
        ),
    };
  };
}
