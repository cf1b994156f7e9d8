/**
 * The owner's console (/console) as a Feature: pages that run the server's operations — every
 * feature's, as REST serves them — as the signed-in wallet key; its background task purges
 * expired console sessions.
 */
import type { FeatureFactory } from "../feature.js";
import { webhooksConfig } from "../services/webhooks/config.js";
import { registerConsoleRoutes } from "../web/console-routes.js";
import { createPaymentsDeps, type PaymentsFeatureOptions } from "./payments.js";
import { startPurges } from "./purges.js";
import { pagesSurface, purgeWebSessions, webDeps } from "./web-pages.js";

interface ConsoleFeatureOptions {
  /** Used only when no earlier feature built the payment services. */
  payments?: PaymentsFeatureOptions;
  /** How often expired sessions are purged (default: every five minutes). */
  purgeEveryMs?: number;
}

/** The wallet owner's console pages and their session purge. */
export function consoleFeature(opts: ConsoleFeatureOptions = {}): FeatureFactory {
  return async (platform) => {
    // The checkout's page origin: a top-up form leads there (the pages' form-action allows it).
    const { checkout } = (await createPaymentsDeps(platform, opts.payments)).deps;
    return {
      name: "console",
      routes: (app, ctx) =>
        registerConsoleRoutes(app, {
          surface: pagesSurface(platform, ctx),
          web: webDeps(platform),
          opts: {
            checkoutOrigin: () => checkout.pageOrigin(),
            allowLoopbackReceivers: webhooksConfig(platform.config.env).allowHttpLoopback,
          },
        }),
      start: async () =>
        startPurges(
          platform,
          [{ what: "expired web sessions", run: (p) => purgeWebSessions(p) }],
          "console housekeeping",
          opts.purgeEveryMs,
        ),
    };
  };
}
