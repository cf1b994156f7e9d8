/**
 * The owner's console (/console) as a Feature: pages that run the server's operations — every
 * feature's, as REST serves them — as the signed-in wallet key; its background task purges
 * expired console sessions.
 */
import type { FeatureFactory } from "../feature.js";
import { webhooksConfig } from "../services/webhooks/config.js";
import { registerConsoleRoutes } from "../web/console-routes.js";
import { startPurges } from "./purges.js";
import { pagesSurface, purgeWebSessions, webDeps } from "./web-pages.js";

interface ConsoleFeatureOptions {
  /** How often expired sessions are purged (default: every five minutes). */
  purgeEveryMs?: number;
}

/** The wallet owner's console pages and their session purge. */
export function consoleFeature(opts: ConsoleFeatureOptions = {}): FeatureFactory {
  return (platform) => ({
    name: "console",
    routes: (app, ctx) =>
      registerConsoleRoutes(app, {
        surface: pagesSurface(platform, ctx),
        web: webDeps(platform),
        opts: {
          // A top-up form leads to the checkout's page, which the payments feature names;
          // without payments the pages post only to themselves.
          checkoutOrigin: () => ctx.formTargets()[0] ?? new URL(platform.publicUrl).origin,
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
  });
}
