/** The owner's console (/console) as a Feature, over the same services as the REST API. */
import type { FeatureFactory } from "../platform.js";
import { registerConsoleRoutes } from "../web/console-routes.js";
import { type ClipsFeatureOptions, clipDeps } from "./clips.js";
import { createPaymentsDeps, type PaymentsFeatureOptions } from "./payments.js";

export function consoleFeature(
  opts: { clips?: ClipsFeatureOptions; payments?: PaymentsFeatureOptions } = {},
): FeatureFactory {
  return async (platform) => {
    const deps = {
      platform,
      clips: clipDeps(platform, opts.clips),
      payments: (await createPaymentsDeps(platform, opts.payments)).deps,
      signInLimit: platform.config.rateLimits.signIn,
    };
    return { name: "console", routes: (app) => registerConsoleRoutes(app, deps) };
  };
}
