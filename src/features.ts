/** Every feature kinora serves, in mount order. */
import { clipsFeature } from "./features/clips.js";
import { connectedAppsFeature } from "./features/connected-apps.js";
import { consoleFeature } from "./features/console.js";
import { mcpFeature } from "./features/mcp.js";
import { metricsFeature } from "./features/metrics.js";
import { paymentsFeature } from "./features/payments.js";
import { restoreFeature } from "./features/restore.js";
import type { FeatureFactory } from "./platform.js";

export const FEATURES: FeatureFactory[] = [
  restoreFeature(),
  clipsFeature(),
  paymentsFeature(),
  mcpFeature(),
  connectedAppsFeature(),
  consoleFeature(),
  metricsFeature(),
];
